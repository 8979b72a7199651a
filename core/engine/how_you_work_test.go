package engine

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/grovecli/grove/core/model"
)

// TestReadOnlyTemplateIsNotToldToPatch: the explorer template (read_only,
// no apply_patch in its allow_list) is not told to make changes with
// apply_patch, but is told about exec_command, which it has.
func TestReadOnlyTemplateIsNotToldToPatch(t *testing.T) {
	var mu sync.Mutex
	var explorerInstructions string
	env := newEnv(t, script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			if tn.rounds == 0 {
				return calls(toolCall("s1", "spawn_agent", map[string]any{"agent_type": "explorer", "message": "dig"})), nil
			}
			if tn.rounds == 1 {
				return calls(toolCall("w1", "wait", map[string]any{"ids": []string{agentIDOf(tn.output("s1"))}})), nil
			}
			return text("done"), nil
		},
		"explorer": func(_ context.Context, tn turn) (model.Response, error) {
			mu.Lock()
			explorerInstructions = tn.req.Instructions
			mu.Unlock()
			return text("dug"), nil
		},
	}, nil)
	env.send("go")
	env.rootFinal(1)
	mu.Lock()
	defer mu.Unlock()
	_, section, _ := strings.Cut(explorerInstructions, "# How you work\n")
	section, _, _ = strings.Cut(section, "\n# ")
	if strings.Contains(section, "apply_patch") || !strings.Contains(section, "You cannot change files") || !strings.Contains(section, "exec_command") {
		t.Errorf("explorer's How you work:\n%s", section)
	}
}

// agentIDOf reads spawn_agent's agent_id ("" when the spawn failed).
func agentIDOf(out string) string {
	var r struct {
		AgentID string `json:"agent_id"`
	}
	_ = json.Unmarshal([]byte(out), &r)
	return r.AgentID
}
