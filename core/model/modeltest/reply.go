package modeltest

import (
	"time"

	"github.com/grovecli/grove/protocol"
)

// ToolCall is a scripted function call.
type ToolCall struct {
	ID, Name, Arguments string
}

// Reply is one scripted answer, or a fault.
type Reply struct {
	Text      string
	Reasoning string
	ToolCalls []ToolCall
	// Usage is reported in the final usage chunk (chat, when the request
	// asked for it) or in response.completed (responses).
	Usage protocol.TokenUsage
	// Status >= 400 answers with that HTTP status and Body (a JSON error;
	// a generic one when empty).
	Status int
	Header map[string]string // response headers, e.g. Retry-After
	Body   string
	// DropAfterChunks closes the connection after N SSE events (0 = none).
	DropAfterChunks int
	// TruncateAfterChunks ends the response cleanly after N SSE events,
	// before the terminal ones (0 = none): a stream that just stops.
	TruncateAfterChunks int
	// Reset closes the connection without any response.
	Reset bool
	// StreamError sends an error object inside the stream, after the text
	// and before any tool call: {"error":{…}} on chat, an `error` event on
	// responses. The stream then stops, as real servers do.
	StreamError string
	// StreamErrorType is the error's type/code (default
	// "invalid_request_error"; "server_error" makes it retryable).
	StreamErrorType string
	// ChunkSize splits text, reasoning and tool arguments into pieces of
	// this many bytes (default 4), one event each.
	ChunkSize int
	// ChunkDelay pauses between events (a slow stream); the pause ends
	// when the client goes away.
	ChunkDelay time.Duration
	// Recorded replays these SSE data payloads verbatim instead of
	// generating events (a recorded stream, see LoadFixture); a payload
	// with a "type" field is sent as an event of that name, like the
	// Responses API does. RecordedDone appends "data: [DONE]".
	Recorded     []string
	RecordedDone bool
	// ContentType with Status 0 answers 200 with Body as is under this
	// content type: a server that ignored stream:true (application/json)
	// or an HTML page.
	ContentType string
	// Hang accepts the request and never sends headers (until the client
	// goes away or the server closes).
	Hang bool
}

func (r Reply) errorType() string {
	if r.StreamErrorType == "" {
		return "invalid_request_error"
	}
	return r.StreamErrorType
}
