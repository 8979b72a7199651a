package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestStructuredContentSentOnce: a result's structuredContent reaches the
// model once — as the server's text when it sent text, as JSON otherwise.
// The file case is the filesystem reference server's read_text_file shape
// (text block + structuredContent {"content": the same text}), which was
// sent twice and, for a 21 KB file, grew past the 32 KiB limit.
func TestStructuredContentSentOnce(t *testing.T) {
	file := strings.Repeat("line of a source file, with \"quotes\" and\ttabs\n", 470) // ~21 KB
	cases := []struct {
		name string
		res  *sdk.CallToolResult
		want string
	}{
		{"text and structured", &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: file}}, StructuredContent: map[string]any{"content": file}}, file},
		{"structured only", &sdk.CallToolResult{StructuredContent: map[string]any{"width": 2}}, `{"width":2}`},
		{"text mirrors the JSON", &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: `{"width":2}`}}, StructuredContent: map[string]any{"width": 2}}, `{"width":2}`},
		{"image only", &sdk.CallToolResult{Content: []sdk.Content{&sdk.ImageContent{MIMEType: "image/png", Data: []byte("12345")}}}, "[image image/png, 5 bytes, attached]"},
	}
	for _, c := range cases {
		got := resultOutput(c.res, DefaultMaxOutput)
		if got != c.want {
			t.Errorf("%s: got %d bytes %q…, want %d bytes", c.name, len(got), clip(got, 80), len(c.want))
		}
	}
	// The old output for the file case, for the record: text + escaped JSON.
	b, _ := json.Marshal(map[string]any{"content": file})
	if before := len(file) + 1 + len(b); before <= DefaultMaxOutput {
		t.Fatalf("the file case should have exceeded the limit when sent twice (%d bytes)", before)
	}
}
