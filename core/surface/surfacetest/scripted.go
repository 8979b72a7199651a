package surfacetest

import (
	"context"
	"strings"
	"sync"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
)

// Scripted is an in-process model.Client for surface tests that script
// in Go types rather than over the wire (Config.Client): Who names the
// asking thread (nil: every request is "root"), Reply computes its answer.
// A reply may block (a sub-agent held at work); it ends with the
// request's context, as a real provider's stream does.
type Scripted struct {
	Who   func(model.Request) string
	Reply func(who string, req model.Request) model.Response
	// Usage, when set, is reported with every reply.
	Usage protocol.TokenUsage

	mu   sync.Mutex
	reqs map[string][]model.Request
}

// Stream implements model.Client.
func (s *Scripted) Stream(ctx context.Context, req model.Request, _ func(model.Delta)) (model.Response, error) {
	who := "root"
	if s.Who != nil {
		who = s.Who(req)
	}
	s.mu.Lock()
	if s.reqs == nil {
		s.reqs = map[string][]model.Request{}
	}
	s.reqs[who] = append(s.reqs[who], req)
	s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return model.Response{}, err
	}
	done := make(chan model.Response, 1)
	go func() { done <- s.Reply(who, req) }()
	select {
	case r := <-done:
		if r.Usage == (protocol.TokenUsage{}) {
			r.Usage = s.Usage
		}
		return r, nil
	case <-ctx.Done():
		return model.Response{}, ctx.Err()
	}
}

// Models implements model.Client: no model list.
func (s *Scripted) Models(context.Context) ([]model.ModelInfo, error) {
	return nil, model.ErrModelsUnsupported
}

// Name implements model.Client.
func (s *Scripted) Name() string { return "scripted" }

// Requests are the requests thread who sent so far.
func (s *Scripted) Requests(who string) []model.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]model.Request(nil), s.reqs[who]...)
}

// ToolCall is a reply with one tool call.
func ToolCall(id, name, args string) model.Response {
	return model.Response{ToolCalls: []model.ToolCallRequest{{CallID: id, Name: name, Arguments: args}}}
}

// TaskWord names a sub-agent by the first word of the last line of its
// first user message: tests start each task with a one-word name (the
// surface may put lines of its own before the task).
func TaskWord(req model.Request) string {
	for _, it := range req.Items {
		if it.Type == protocol.ItemMessage && it.Role == protocol.RoleUser {
			lines := strings.Split(strings.TrimSpace(it.Content), "\n")
			if f := strings.Fields(lines[len(lines)-1]); len(f) > 0 {
				return f[0]
			}
		}
	}
	return "?"
}
