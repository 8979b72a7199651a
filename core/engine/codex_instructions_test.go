package engine

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/grovecli/grove/core/model"
)

// TestCodexInstructionKeys: model_instructions_file's text replaces the
// base prompt (the delegation section stays, the tools need it) and
// developer_instructions reach the model as their own section.
func TestCodexInstructionKeys(t *testing.T) {
	var mu sync.Mutex
	var got string
	env := newEnv(t, script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			mu.Lock()
			got = tn.req.Instructions
			mu.Unlock()
			return text("ok"), nil
		},
	}, func(o *Options) {
		o.BaseInstructions = "You are the house model. Answer in French."
		o.DeveloperInstructions = "Never touch vendor/."
	})
	env.send("go")
	env.rootFinal(1)
	mu.Lock()
	defer mu.Unlock()
	if !strings.HasPrefix(got, "You are the house model. Answer in French.") || strings.Contains(got, "You are a coding agent running in grove") {
		t.Errorf("base prompt not replaced:\n%s", got)
	}
	if !strings.Contains(got, "# Working with sub-agents") || !strings.Contains(got, "# Developer instructions\nNever touch vendor/.") {
		t.Errorf("delegation or developer section missing:\n%s", got)
	}
}
