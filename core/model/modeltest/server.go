// Package modeltest is an in-process model server for tests and
// benchmarks: it speaks Chat Completions and Responses over SSE with
// scripted replies and fault injection, so no test needs the network or a
// key.
package modeltest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/grovecli/grove/protocol"
)

// ToolCall is a scripted function call.
type ToolCall struct {
	ID, Name, Arguments string
}

// Reply is one scripted answer (or fault).
type Reply struct {
	Text      string
	Reasoning string
	ToolCalls []ToolCall
	Usage     protocol.TokenUsage
	// Status >= 400 answers with that HTTP status and Body (JSON error).
	Status int
	Header map[string]string
	Body   string
	// DropAfterChunks closes the stream after N data chunks (0 = no drop).
	DropAfterChunks int
	// Reset closes the connection without any response.
	Reset bool
	// StreamError sends an error object inside the stream.
	StreamError string
	// ChunkSize splits text and arguments into pieces of this many bytes (default 4).
	ChunkSize int
}

// CapturedRequest is what the server received.
type CapturedRequest struct {
	Path     string
	Header   http.Header
	Body     map[string]any
	Received time.Time
}

// Server is the fake provider.
type Server struct {
	srv          *httptest.Server
	mu           sync.Mutex
	queue        []Reply
	handler      func(CapturedRequest) Reply
	reqs         []CapturedRequest
	models       []string
	modelsStatus int
}

// Start runs a server; call Close when done.
func Start() *Server {
	s := &Server{models: []string{"test-model"}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// NewServer starts a server closed by t.Cleanup.
func NewServer(t interface{ Cleanup(func()) }) *Server {
	s := Start()
	t.Cleanup(s.Close)
	return s
}

// Close stops the server.
func (s *Server) Close() {
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// URL is the base URL (ending in /v1).
func (s *Server) URL() string { return s.srv.URL + "/v1" }

// Enqueue adds replies consumed in order.
func (s *Server) Enqueue(r ...Reply) {
	s.mu.Lock()
	s.queue = append(s.queue, r...)
	s.mu.Unlock()
}

// Handle sets a function that answers when the queue is empty.
func (s *Server) Handle(f func(CapturedRequest) Reply) {
	s.mu.Lock()
	s.handler = f
	s.mu.Unlock()
}

// SetModels sets the /models list; status != 0 makes /models fail with it.
func (s *Server) SetModels(ids []string, status int) {
	s.mu.Lock()
	s.models, s.modelsStatus = ids, status
	s.mu.Unlock()
}

// Requests returns every captured model request.
func (s *Server) Requests() []CapturedRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]CapturedRequest(nil), s.reqs...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models"):
		s.mu.Lock()
		ids, status := s.models, s.modelsStatus
		s.mu.Unlock()
		if status != 0 {
			http.Error(w, `{"error":{"message":"models unavailable"}}`, status)
			return
		}
		data := make([]map[string]any, len(ids))
		for i, id := range ids {
			data[i] = map[string]any{"id": id, "object": "model", "created": 0, "owned_by": "test"}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
		return
	case r.Method != http.MethodPost:
		http.NotFound(w, r)
		return
	}
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(raw, &body)
	cr := CapturedRequest{Path: r.URL.Path, Header: r.Header.Clone(), Body: body, Received: time.Now()}
	s.mu.Lock()
	s.reqs = append(s.reqs, cr)
	var reply Reply
	switch {
	case len(s.queue) > 0:
		reply = s.queue[0]
		s.queue = s.queue[1:]
	case s.handler != nil:
		h := s.handler
		s.mu.Unlock()
		reply = h(cr)
		s.mu.Lock()
	default:
		reply = Reply{Status: 500, Body: `{"error":{"message":"modeltest: no scripted reply left","type":"server_error"}}`}
	}
	s.mu.Unlock()
	if reply.Reset {
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				_ = conn.Close()
				return
			}
		}
	}
	for k, v := range reply.Header {
		w.Header().Set(k, v)
	}
	if reply.Status >= 400 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(reply.Status)
		_, _ = io.WriteString(w, reply.Body)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	var events []string
	if strings.HasSuffix(r.URL.Path, "/responses") {
		events = responsesEvents(reply)
	} else {
		events = chatEvents(reply)
	}
	fl, _ := w.(http.Flusher)
	for i, ev := range events {
		if reply.DropAfterChunks > 0 && i >= reply.DropAfterChunks {
			if hj, ok := w.(http.Hijacker); ok {
				if conn, _, err := hj.Hijack(); err == nil {
					_ = conn.Close()
				}
			}
			return
		}
		if _, err := io.WriteString(w, ev); err != nil {
			return
		}
		if fl != nil {
			fl.Flush()
		}
	}
}

func pieces(s string, n int) []string {
	if n <= 0 {
		n = 4
	}
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

func sse(event string, v any) string {
	b, _ := json.Marshal(v)
	if event == "" {
		return "data: " + string(b) + "\n\n"
	}
	return "event: " + event + "\ndata: " + string(b) + "\n\n"
}

func chatEvents(r Reply) []string {
	var out []string
	chunk := func(delta map[string]any, finish any) string {
		return sse("", map[string]any{"id": "chatcmpl-test", "object": "chat.completion.chunk", "choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
	}
	out = append(out, chunk(map[string]any{"role": "assistant"}, nil))
	for _, p := range pieces(r.Reasoning, r.ChunkSize) {
		out = append(out, chunk(map[string]any{"reasoning_content": p}, nil))
	}
	for _, p := range pieces(r.Text, r.ChunkSize) {
		out = append(out, chunk(map[string]any{"content": p}, nil))
	}
	if r.StreamError != "" {
		out = append(out, sse("", map[string]any{"error": map[string]any{"message": r.StreamError, "type": "invalid_request_error"}}))
	}
	for i, tc := range r.ToolCalls {
		out = append(out, chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": tc.ID, "type": "function", "function": map[string]any{"name": tc.Name, "arguments": ""}}}}, nil))
		for _, p := range pieces(tc.Arguments, r.ChunkSize) {
			out = append(out, chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": p}}}}, nil))
		}
	}
	finish := "stop"
	if len(r.ToolCalls) > 0 {
		finish = "tool_calls"
	}
	out = append(out, chunk(map[string]any{}, finish))
	u := r.Usage
	out = append(out, sse("", map[string]any{"id": "chatcmpl-test", "choices": []any{}, "usage": map[string]any{
		"prompt_tokens": u.InputTokens, "completion_tokens": u.OutputTokens, "total_tokens": u.TotalTokens,
		"prompt_tokens_details": map[string]any{"cached_tokens": u.CachedInputTokens}}}))
	out = append(out, "data: [DONE]\n\n")
	return out
}

func responsesEvents(r Reply) []string {
	var out []string
	out = append(out, sse("response.created", map[string]any{"type": "response.created", "response": map[string]any{"id": "resp_test", "status": "in_progress"}}))
	for _, p := range pieces(r.Reasoning, r.ChunkSize) {
		out = append(out, sse("response.reasoning_summary_text.delta", map[string]any{"type": "response.reasoning_summary_text.delta", "delta": p}))
	}
	if r.Text != "" {
		out = append(out, sse("response.output_item.added", map[string]any{"type": "response.output_item.added", "item": map[string]any{"type": "message", "id": "msg_1", "role": "assistant"}}))
		for _, p := range pieces(r.Text, r.ChunkSize) {
			out = append(out, sse("response.output_text.delta", map[string]any{"type": "response.output_text.delta", "item_id": "msg_1", "delta": p}))
		}
	}
	if r.StreamError != "" {
		out = append(out, sse("error", map[string]any{"type": "error", "code": "invalid_request", "message": r.StreamError}))
	}
	for i, tc := range r.ToolCalls {
		id := fmt.Sprintf("fc_%d", i)
		out = append(out, sse("response.output_item.added", map[string]any{"type": "response.output_item.added", "item": map[string]any{"type": "function_call", "id": id, "call_id": tc.ID, "name": tc.Name, "arguments": ""}}))
		for _, p := range pieces(tc.Arguments, r.ChunkSize) {
			out = append(out, sse("response.function_call_arguments.delta", map[string]any{"type": "response.function_call_arguments.delta", "item_id": id, "delta": p}))
		}
		out = append(out, sse("response.output_item.done", map[string]any{"type": "response.output_item.done", "item": map[string]any{"type": "function_call", "id": id, "call_id": tc.ID, "name": tc.Name, "arguments": tc.Arguments}}))
	}
	u := r.Usage
	out = append(out, sse("response.completed", map[string]any{"type": "response.completed", "response": map[string]any{"id": "resp_test", "status": "completed", "usage": map[string]any{
		"input_tokens": u.InputTokens, "output_tokens": u.OutputTokens, "total_tokens": u.TotalTokens,
		"input_tokens_details": map[string]any{"cached_tokens": u.CachedInputTokens}, "output_tokens_details": map[string]any{"reasoning_tokens": u.ReasoningTokens}}}}))
	return out
}
