package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/model"
)

type habitTool struct{ got json.RawMessage }

func (*habitTool) Spec() model.ToolSpec {
	return model.ToolSpec{Name: "habit", Description: "d", Parameters: json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}},"additionalProperties":false}`)}
}
func (h *habitTool) Run(_ context.Context, _ *Env, raw json.RawMessage) Result {
	h.got = raw
	return Result{Output: "ok"}
}
func (*habitTool) IgnoredArgs() []string { return []string{"service_tier"} }

// A habit argument is accepted and never reaches the handler; a field no
// harness has is still an error naming it.
func TestHabitArgsAcceptedUnknownRefused(t *testing.T) {
	r := NewRegistry()
	h := &habitTool{}
	if err := r.Register(h); err != nil {
		t.Fatal(err)
	}
	res := r.Run(context.Background(), nil, "habit", json.RawMessage(`{"x":"a","service_tier":"flex"}`))
	if res.IsError || string(h.got) != `{"x":"a"}` {
		t.Fatalf("habit arg: %+v, handler got %s", res, h.got)
	}
	res = r.Run(context.Background(), nil, "habit", json.RawMessage(`{"x":"a","colour":"red"}`))
	if !res.IsError || !strings.Contains(res.Output, "colour") {
		t.Fatalf("unknown field: %+v", res)
	}
}
