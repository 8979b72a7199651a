package surfacetest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sync"

	"github.com/grovecli/grove/core/model/modeltest"
	"github.com/grovecli/grove/protocol"
)

// Turns scripts the model per thread: a thread is named by the last
// `AS:<name>` marker in its conversation's user messages (the root's
// prompt and each delegated task carry one; a child that forks its
// parent's context has the parent's marker first), and its n-th request gets
// its n-th Turn. A thread past its script answers "done"; an unnamed one
// answers "unscripted" (a case that forgets a marker sees that text).
type Turns map[string][]Turn

// Turn computes one reply from the request it answers.
type Turn func(Request) modeltest.Reply

// Request is one captured model request and the thread that sent it.
type Request struct {
	Who string
	modeltest.CapturedRequest
	env *Env
}

var whoRe = regexp.MustCompile(`AS:([A-Za-z0-9_-]+)`)

// Who names the thread a request comes from ("" when no marker).
func Who(cr modeltest.CapturedRequest) string {
	msgs, _ := cr.Body["messages"].([]any)
	who := ""
	for _, m := range msgs {
		msg, _ := m.(map[string]any)
		if msg["role"] != "user" {
			continue
		}
		if all := whoRe.FindAllStringSubmatch(text(msg["content"]), -1); all != nil {
			who = all[len(all)-1][1]
		}
	}
	return who
}

// text is a chat message's content: a string, or the text of its parts.
func text(c any) string {
	if s, ok := c.(string); ok {
		return s
	}
	parts, _ := c.([]any)
	out := ""
	for _, p := range parts {
		if m, _ := p.(map[string]any); m != nil {
			if s, _ := m["text"].(string); s != "" {
				out += s
			}
		}
	}
	return out
}

func (ts Turns) handler(env *Env) func(modeltest.CapturedRequest) modeltest.Reply {
	var mu sync.Mutex
	seen := map[string]int{}
	return func(cr modeltest.CapturedRequest) modeltest.Reply {
		who := Who(cr)
		mu.Lock()
		n := seen[who]
		seen[who]++
		mu.Unlock()
		if who == "" {
			return modeltest.Reply{Text: "unscripted"}
		}
		script := ts[who]
		if n >= len(script) {
			return modeltest.Reply{Text: "done"}
		}
		return script[n](Request{Who: who, CapturedRequest: cr, env: env})
	}
}

// Say answers with text and no tool call (the thread's turn ends).
func Say(s string) Turn {
	return func(Request) modeltest.Reply { return modeltest.Reply{Text: s} }
}

// Call answers with one tool call.
func Call(id, name, args string) Turn {
	return func(Request) modeltest.Reply {
		return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: id, Name: name, Arguments: args}}}
	}
}

// CallWith answers with one tool call whose arguments are computed from
// the request (e.g. an id an earlier tool returned).
func CallWith(id, name string, args func(Request) string) Turn {
	return func(r Request) modeltest.Reply {
		return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: id, Name: name, Arguments: args(r)}}}
	}
}

// Hold keeps the thread at work: the request is accepted and never
// answered until the engine cancels it (an interrupt, a close, shutdown).
func Hold() Turn {
	return func(Request) modeltest.Reply { return modeltest.Reply{Hang: true} }
}

// Output is what the model was sent back for callID in this request's
// conversation: the tool message's content as it crossed the wire.
func (r Request) Output(callID string) (string, bool) {
	msgs, _ := r.Body["messages"].([]any)
	for _, m := range msgs {
		msg, _ := m.(map[string]any)
		if msg["role"] == "tool" && msg["tool_call_id"] == callID {
			return text(msg["content"]), true
		}
	}
	return "", false
}

// Field is a string field of the JSON object callID returned ("" when
// absent): how a script carries an id from one call to the next.
func (r Request) Field(callID, field string) string {
	out, _ := r.Output(callID)
	var m map[string]any
	if json.Unmarshal([]byte(out), &m) != nil {
		return ""
	}
	return fmt.Sprint(m[field])
}

// After answers turn once an event that matches has been emitted: a
// script that must see another thread's progress (a sub-agent's
// notifications) waits on the event instead of on time. If the session
// ends first the thread is answered "stopped waiting".
func After(match func(protocol.Event) bool, turn Turn) Turn {
	return func(r Request) modeltest.Reply {
		if !r.env.Events.await(match) {
			return modeltest.Reply{Text: "stopped waiting"}
		}
		return turn(r)
	}
}
