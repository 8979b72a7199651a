package model

import (
	"encoding/json"
	"testing"
)

// TestOutputSchemaOnTheWire: --output-schema goes out as Codex sends it,
// Responses `text.format` and Chat `response_format`, strict, named
// codex_output_schema.
func TestOutputSchemaOnTheWire(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"],"additionalProperties":false}`)
	req := Request{Model: "m", OutputSchema: schema}
	rb, err := responsesBody(req, nil)
	if err != nil {
		t.Fatal(err)
	}
	cb, err := chatBody(req, nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		body any
		want string
	}{
		"responses": {rb, `{"format":{"type":"json_schema","name":"codex_output_schema","strict":true,"schema":` + string(schema) + `}}`},
		"chat":      {cb, `{"type":"json_schema","json_schema":{"name":"codex_output_schema","strict":true,"schema":` + string(schema) + `}}`},
	} {
		raw, _ := json.Marshal(c.body)
		var m map[string]json.RawMessage
		_ = json.Unmarshal(raw, &m)
		key := map[string]string{"responses": "text", "chat": "response_format"}[name]
		if string(m[key]) != c.want {
			t.Errorf("%s %s = %s\nwant %s", name, key, m[key], c.want)
		}
	}
	rb, _ = responsesBody(Request{Model: "m"}, nil)
	cb, _ = chatBody(Request{Model: "m"}, nil)
	if rb.Text != nil || cb.ResponseFormat != nil {
		t.Error("no schema, yet a format was sent")
	}
}
