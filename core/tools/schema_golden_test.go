package tools

import (
	"encoding/json"
	"testing"

	"github.com/grovecli/grove/core/tools/schema/schematest"
)

// TestToolSchemasGolden pins the parameter schemas the model sees for the
// core tools.
func TestToolSchemasGolden(t *testing.T) {
	r := NewRegistry()
	if err := RegisterCore(r); err != nil {
		t.Fatal(err)
	}
	got := map[string]json.RawMessage{}
	for _, s := range r.Specs(nil) {
		got[s.Name] = s.Parameters
	}
	schematest.Golden(t, "testdata/tool_schemas.golden", got)
}

// TestClaudeToolSchemasGolden pins the parameter schemas of Claude Code's
// tools as grove offers them (Claude Code's names and parameters).
func TestClaudeToolSchemasGolden(t *testing.T) {
	r := NewRegistry()
	if err := RegisterClaude(r); err != nil {
		t.Fatal(err)
	}
	got := map[string]json.RawMessage{}
	for _, n := range r.Names() {
		tool, _ := r.Get(n)
		got[n] = tool.Spec().Parameters
	}
	schematest.Golden(t, "testdata/claude_tool_schemas.golden", got)
}
