package surfacetest

import (
	"encoding/json"
	"slices"
)

// Requests are the model requests thread who sent, in order.
func (env *Env) Requests(who string) []Request {
	var out []Request
	for _, cr := range env.Server.Requests() {
		if cr.Path != "/v1/chat/completions" {
			continue
		}
		if w := Who(cr); w == who {
			out = append(out, Request{Who: w, CapturedRequest: cr})
		}
	}
	return out
}

// Output is what thread who's model was sent back for callID, byte for
// byte; the test fails when no request carried it.
func (env *Env) Output(who, callID string) string {
	env.T.Helper()
	for _, r := range env.Requests(who) {
		if out, ok := r.Output(callID); ok {
			return out
		}
	}
	env.T.Fatalf("%s: no request carried the output of call %s", who, callID)
	return ""
}

// JSON decodes the output of callID as a JSON object.
func (env *Env) JSON(who, callID string) map[string]any {
	env.T.Helper()
	out := env.Output(who, callID)
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		env.T.Fatalf("%s: output of %s is not a JSON object: %v\n%s", who, callID, err, out)
	}
	return m
}

// Tools are the tool names offered in thread who's n-th request.
func (env *Env) Tools(who string, n int) []string {
	env.T.Helper()
	var names []string
	tools, _ := env.Request(who, n).Body["tools"].([]any)
	for _, t := range tools {
		m, _ := t.(map[string]any)
		fn, _ := m["function"].(map[string]any)
		if name, _ := fn["name"].(string); name != "" {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// System is the system (instructions) message of thread who's n-th
// request.
func (env *Env) System(who string, n int) string {
	env.T.Helper()
	msgs, _ := env.Request(who, n).Body["messages"].([]any)
	for _, m := range msgs {
		if msg, _ := m.(map[string]any); msg["role"] == "system" || msg["role"] == "developer" {
			return text(msg["content"])
		}
	}
	return ""
}

// Request is thread who's n-th request; the test fails when there is
// none (the thread never ran, or sent fewer).
func (env *Env) Request(who string, n int) Request {
	env.T.Helper()
	reqs := env.Requests(who)
	if n >= len(reqs) {
		env.T.Fatalf("%s sent %d requests, want at least %d", who, len(reqs), n+1)
	}
	return reqs[n]
}
