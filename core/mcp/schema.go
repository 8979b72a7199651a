package mcp

import "encoding/json"

// sanitizeSchema turns a server's inputSchema into parameters every
// provider accepts: a JSON object schema with type "object" and a
// properties map (OpenAI rejects a missing or non-object one). The rest is
// kept as the server wrote it; a schema that is not an object becomes an
// empty object schema.
func sanitizeSchema(in any) json.RawMessage {
	var m map[string]any
	if b, err := json.Marshal(in); err == nil {
		_ = json.Unmarshal(b, &m)
	}
	if m == nil {
		m = map[string]any{}
	}
	m["type"] = "object"
	if p, ok := m["properties"].(map[string]any); !ok || p == nil {
		m["properties"] = map[string]any{}
	}
	// $schema pointing at a remote draft adds nothing for the model, and
	// some providers reject unknown keywords at the top level.
	delete(m, "$schema")
	b, err := json.Marshal(m)
	if err != nil {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return b
}
