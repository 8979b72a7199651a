package model

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/grovecli/grove/protocol"
)

// A freeform tool goes to the Responses wire as a custom tool with its
// grammar (Codex's create_apply_patch_freeform_tool), a hosted tool as it
// is; Chat Completions, which has neither, gets the function form and no
// hosted tool.
func TestFreeformAndHostedToolsPerWire(t *testing.T) {
	specs := []ToolSpec{
		{Name: "apply_patch", Description: "function form", Parameters: json.RawMessage(`{"type":"object","properties":{"input":{"type":"string"}},"required":["input"]}`),
			Freeform: &FreeformFormat{Type: "grammar", Syntax: "lark", Definition: "start: x", Description: "FREEFORM"}},
		{Name: "web_search", Hosted: json.RawMessage(`{"type":"web_search","external_web_access":false}`)},
	}
	rb, err := responsesBody(Request{Model: "gpt-5.1-codex", Tools: specs}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(rb.Tools)
	want := `[{"type":"custom","name":"apply_patch","description":"FREEFORM","format":{"type":"grammar","syntax":"lark","definition":"start: x"}},{"type":"web_search","external_web_access":false}]`
	if string(got) != want {
		t.Fatalf("responses tools\n got %s\nwant %s", got, want)
	}
	cb, err := chatBody(Request{Model: "m", Tools: specs}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, _ = json.Marshal(cb.Tools)
	if !strings.Contains(string(got), `"name":"apply_patch","description":"function form"`) || strings.Contains(string(got), "web_search") || strings.Contains(string(got), "grammar") {
		t.Fatalf("chat tools = %s", got)
	}
}

// A custom call and its output are replayed as custom_tool_call /
// custom_tool_call_output with the raw input on Responses, and in the
// function form {"input": …} on Chat.
func TestCustomCallReplay(t *testing.T) {
	call := protocol.FunctionCall("c1", "apply_patch", "*** Begin Patch\n*** End Patch\n")
	call.Custom = true
	out := protocol.FunctionCallOutput("c1", "Exit code: 0")
	out.Custom = true
	items := []protocol.Item{protocol.UserMessage("edit"), call, out}
	rb, err := responsesBody(Request{Model: "m", Items: items}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(rb.Input[1:])
	want := `[{"type":"custom_tool_call","call_id":"c1","name":"apply_patch","input":"*** Begin Patch\n*** End Patch\n"},{"type":"custom_tool_call_output","call_id":"c1","output":"Exit code: 0"}]`
	if string(got) != want {
		t.Fatalf("responses replay\n got %s\nwant %s", got, want)
	}
	cb, err := chatBody(Request{Model: "m", Items: items}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, _ = json.Marshal(cb.Messages)
	if !strings.Contains(string(got), `"arguments":"{\"input\":\"*** Begin Patch\\n*** End Patch\\n\"}"`) {
		t.Fatalf("chat replay = %s", got)
	}
}

// Hosted web searches of a reply come back once each, with their action.
func TestWebSearchCallItems(t *testing.T) {
	item := `{"type":"web_search_call","id":"ws_1","status":"completed","action":{"type":"search","query":"golang x/image webp"}}`
	got, err := feed(newResponsesAssembler(&delivery{}),
		`response.output_item.done|{"type":"response.output_item.done","output_index":0,"item":`+item+`}`,
		`response.completed|{"type":"response.completed","response":{"id":"r","output":[`+item+`]}}`)
	if err != nil {
		t.Fatal(err)
	}
	want := []protocol.WebSearchCall{{ID: "ws_1", Status: "completed", Action: "search", Query: "golang x/image webp"}}
	if len(got.WebSearches) != 1 || got.WebSearches[0] != want[0] {
		t.Fatalf("web searches = %+v", got.WebSearches)
	}
}
