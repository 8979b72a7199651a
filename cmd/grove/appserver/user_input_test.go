package appserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/model"
)

// askScript calls request_user_input on "ask", then repeats what the tool
// answered.
func askScript(_ context.Context, req model.Request) (model.Response, error) {
	prompt, outs := lastInput(req.Items)
	if prompt == "ask" && len(outs) == 0 {
		return model.Response{ToolCalls: []model.ToolCallRequest{toolCall("call-ask", "request_user_input", map[string]any{
			"questions": []any{map[string]any{"id": "db", "header": "Database", "question": "Which database?",
				"options": []any{map[string]any{"label": "Postgres (Recommended)", "description": "Matches prod."}, map[string]any{"label": "SQLite", "description": "No server."}}}},
		})}}, nil
	}
	if len(outs) > 0 {
		return model.Response{Text: "tool said: " + outs[0]}, nil
	}
	return model.Response{Text: "ok"}, nil
}

// request_user_input reaches the client as Codex's item/tool/requestUserInput
// server request (checked against Codex 0.169's ServerRequest schema); the
// client's answer is what the model reads, and an error answer dismisses.
func TestAppServerRequestUserInput(t *testing.T) {
	f := newFixture(t, askScript)
	c := f.start(t)
	defer c.close()
	c.initialize()
	root := str(c.result("thread/start", map[string]any{"cwd": f.cwd}), "thread", "id")

	turnID := str(c.result("turn/start", turnInput(root, "ask")), "turn", "id")
	id, p := c.serverRequest("item/tool/requestUserInput")
	qs, _ := json.Marshal(p["questions"])
	if p["threadId"] != root || p["turnId"] != turnID || p["itemId"] != "call-ask" || !strings.Contains(string(qs), `"isOther":true`) || !strings.Contains(string(qs), `"label":"SQLite"`) {
		t.Fatalf("requestUserInput params: %v", p)
	}
	c.reply(id, map[string]any{"answers": map[string]any{"db": map[string]any{"answers": []string{"SQLite"}}}})
	done := c.notification("item/completed", func(m map[string]any) bool { return strings.Contains(mustJSON(m["item"]), "tool said") })
	if !strings.Contains(mustJSON(done["item"]), `{\"answers\":{\"db\":{\"answers\":[\"SQLite\"]}}}`) {
		t.Fatalf("model did not read the answer: %v", done)
	}
	c.notification("turn/completed", func(m map[string]any) bool { return str(m, "turn", "id") == turnID })

	turnID = str(c.result("turn/start", turnInput(root, "ask")), "turn", "id")
	id, _ = c.serverRequest("item/tool/requestUserInput")
	c.writeLine(`{"id":` + mustJSON(id) + `,"error":{"code":-32000,"message":"user closed the dialog"}}`)
	done = c.notification("item/completed", func(m map[string]any) bool { return strings.Contains(mustJSON(m["item"]), "tool said") })
	if !strings.Contains(mustJSON(done["item"]), "request_user_input was cancelled before receiving a response") {
		t.Fatalf("dismissal: %v", done)
	}
	c.notification("turn/completed", func(m map[string]any) bool { return str(m, "turn", "id") == turnID })
}
