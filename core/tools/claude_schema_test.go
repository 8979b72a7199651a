package tools

import (
	"encoding/json"
	"testing"
)

// TestClaudeToolsRegisterWithValidSchemas: every Claude tool registers and
// its schema compiles; the offered names are Claude Code's, the earlier
// names (KillShell, LS) answer but are not offered.
func TestClaudeToolsRegisterWithValidSchemas(t *testing.T) {
	r := NewRegistry()
	if err := RegisterClaude(r); err != nil {
		t.Fatal(err)
	}
	if err := r.CheckSchemas(); err != nil {
		t.Fatal(err)
	}
	var offered []string
	for _, s := range r.Specs(nil) {
		offered = append(offered, s.Name)
	}
	want := []string{"Bash", "BashOutput", "TaskStop", "Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "Glob", "Grep", "TodoWrite", "AskUserQuestion"}
	if got, _ := json.Marshal(offered); string(got) != mustJSON(want) {
		t.Fatalf("offered %s, want %s", got, mustJSON(want))
	}
	for _, n := range []string{"KillShell", "LS"} {
		if _, ok := r.Get(n); !ok {
			t.Errorf("%s is not registered", n)
		}
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
