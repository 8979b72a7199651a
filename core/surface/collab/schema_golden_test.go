package collab

import (
	"encoding/json"
	"testing"

	"github.com/grovecli/grove/core/tools/schema"
	"github.com/grovecli/grove/core/tools/schema/schematest"
)

// TestToolSchemasGolden pins the parameter schemas the model sees.
func TestToolSchemasGolden(t *testing.T) {
	schematest.Golden(t, "testdata/tool_schemas.golden", map[string]json.RawMessage{
		"spawn_agent":        schema.MustObject(spawnArgs{}),
		"send_input":         schema.MustObject(sendInputArgs{}),
		"wait":               schema.MustObject(waitArgs{}),
		"id_arg":             schema.MustObject(idArg{}),
		"list_agents":        schema.MustObject(listAgentsArgs{}),
		"list_active_agents": schema.MustObject(listActiveArgs{}),
		"set_thread_note":    schema.MustObject(setNoteArgs{}),
	})
}
