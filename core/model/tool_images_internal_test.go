package model

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/grovecli/grove/protocol"
)

// toolImageItems: one call returns an image, its sibling only text.
func toolImageItems() []protocol.Item {
	img := protocol.FunctionCallOutput("c1", "[image image/png, 8 bytes, attached]")
	img.Images = []string{"data:image/png;base64,AAAA"}
	return []protocol.Item{
		protocol.UserMessage("look"),
		protocol.FunctionCall("c1", "mcp__shot__take", "{}"),
		protocol.FunctionCall("c2", "read_file", "{}"),
		img,
		protocol.FunctionCallOutput("c2", "text"),
	}
}

// TestToolImagesOnTheResponsesWire: an output with images is a list of
// input_text and input_image parts.
func TestToolImagesOnTheResponsesWire(t *testing.T) {
	body, err := responsesBody(Request{Model: "m", Items: toolImageItems()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(body.Input)
	got := string(b)
	want := `{"type":"function_call_output","call_id":"c1","output":[{"type":"input_text","text":"[image image/png, 8 bytes, attached]"},{"type":"input_image","image_url":"data:image/png;base64,AAAA"}]}`
	if !strings.Contains(got, want) || !strings.Contains(got, `{"type":"function_call_output","call_id":"c2","output":"text"}`) {
		t.Fatalf("responses input:\n%s\nwant the image output as parts:\n%s", got, want)
	}
}

// TestToolImagesOnTheChatWire: tool messages are text, so the image
// follows the whole run of tool messages as a user message's image_url.
func TestToolImagesOnTheChatWire(t *testing.T) {
	body, err := chatBody(Request{Model: "m", Items: toolImageItems()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, m := range body.Messages {
		roles = append(roles, m.Role)
	}
	if strings.Join(roles, ",") != "user,assistant,tool,tool,user" {
		t.Fatalf("message roles %v: the image message must come after both tool messages", roles)
	}
	b, _ := json.Marshal(body.Messages[4])
	if !strings.Contains(string(b), `"image_url":{"url":"data:image/png;base64,AAAA"}`) || !strings.Contains(string(b), "tool call c1") {
		t.Fatalf("image message: %s", b)
	}
}
