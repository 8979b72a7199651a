package engine

import (
	"testing"

	"github.com/grovecli/grove/protocol"
)

// model_reasoning_summary reaches every request's reasoning.summary; a
// turn that sets its own summary wins for that thread from then on.
func TestConfiguredReasoningSummaryReachesTheRequest(t *testing.T) {
	p := newCompactingProvider(t)
	env := newEnv(t, nil, func(o *Options) {
		o.Client = p.client(t)
		o.ReasoningEffort, o.ReasoningSummary = "high", "detailed"
	})
	env.send("first")
	env.rootFinal(1)
	over := &protocol.TurnOverrides{ReasoningSummary: "concise"}
	if err := env.e.Submit(protocol.Op{Type: protocol.OpUserTurn, ThreadID: env.root, Text: "second", Overrides: over}); err != nil {
		t.Fatal(err)
	}
	env.rootFinal(2)
	var got []any
	for _, r := range requestsTo(p.srv.Requests(), "/v1/responses") {
		reasoning, _ := r.Body["reasoning"].(map[string]any)
		got = append(got, reasoning["summary"])
	}
	if len(got) != 2 || got[0] != "detailed" || got[1] != "concise" {
		t.Fatalf("reasoning.summary per request = %v, want [detailed concise]", got)
	}
}
