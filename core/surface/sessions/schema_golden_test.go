package sessions

import (
	"encoding/json"
	"testing"

	"github.com/grovecli/grove/core/tools/schema"
	"github.com/grovecli/grove/core/tools/schema/schematest"
)

// TestToolSchemasGolden pins the parameter schemas the model sees.
func TestToolSchemasGolden(t *testing.T) {
	schematest.Golden(t, "testdata/tool_schemas.golden", map[string]json.RawMessage{
		"create": (&Surface{profiles: merged(nil)}).createSchema(),
		"wait":   schema.MustObject(waitArgs{}),
		"cancel": schema.MustObject(cancelArgs{}),
	})
}
