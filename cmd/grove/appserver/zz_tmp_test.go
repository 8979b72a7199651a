package appserver

import "testing"

func TestZZTextElementsStored(t *testing.T) {
	f := newFixture(t, treeScript)
	c := f.start(t)
	c.initialize()
	root := str(c.result("thread/start", map[string]any{"cwd": f.cwd}), "thread", "id")
	elements := []any{map[string]any{"byteRange": map[string]any{"start": 0, "end": 5}, "placeholder": "@file"}}
	in := map[string]any{"threadId": root, "input": []any{map[string]any{"type": "text", "text": "hello there", "text_elements": elements}}}
	turnID := str(c.result("turn/start", in), "turn", "id")
	c.notification("turn/completed", func(p map[string]any) bool { return str(p, "turn", "id") == turnID })
	c.close()
	c = f.start(t)
	defer c.close()
	c.initialize()
	r := c.result("thread/read", map[string]any{"threadId": root, "includeTurns": true})
	t.Logf("%s", mustJSON(r["thread"].(map[string]any)["turns"]))
}
