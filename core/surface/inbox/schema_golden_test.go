package inbox

import (
	"encoding/json"
	"testing"

	"github.com/grovecli/grove/core/tools/schema"
	"github.com/grovecli/grove/core/tools/schema/schematest"
)

// TestToolSchemasGolden pins the parameter schemas the model sees.
func TestToolSchemasGolden(t *testing.T) {
	schematest.Golden(t, "testdata/tool_schemas.golden", map[string]json.RawMessage{
		"create": schema.MustObject(createArgs{}),
		"list":   schema.MustObject(listArgs{}),
		"check":  schema.MustObject(checkArgs{}),
		"reply":  schema.MustObject(replyArgs{}),
		"end":    schema.MustObject(endArgs{}),
		"notify": schema.MustObject(notifyArgs{}),
	})
}
