package task

import (
	"encoding/json"
	"testing"

	"github.com/grovecli/grove/core/tools/schema"
	"github.com/grovecli/grove/core/tools/schema/schematest"
)

// TestToolSchemasGolden pins the parameter schemas the model sees.
func TestToolSchemasGolden(t *testing.T) {
	schematest.Golden(t, "testdata/tool_schemas.golden", map[string]json.RawMessage{
		"task":        schema.MustObject(taskArgs{}),
		"task_output": schema.MustObject(taskOutputArgs{}),
	})
}

// The tools' descriptions are seed 004 §3.7's; grove only appends the
// other agent types a session has after the seed's text.
func TestToolDescriptionsAreTheSeeds(t *testing.T) {
	r := NewRegistry(nil, Defaults{})
	if got := taskDescription(r); got != seedTaskDescription {
		t.Errorf("Task description with only the built-ins = %q", got)
	}
	out := (&taskOutputTool{}).Spec().Description
	if out != "Retrieves results from a background subagent task." {
		t.Errorf("TaskOutput description = %q", out)
	}
}
