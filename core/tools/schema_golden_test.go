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
