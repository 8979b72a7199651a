package appserver

// thread/turns/list cases ported from openai/codex
// codex-rs/app-server/tests/suite/v2/thread_read.rs (test named per case).
// Every message is validated against Codex 0.169's schema by the client
// harness (each listed turn against 0.169's Turn).

import (
	"context"
	"slices"
	"testing"

	"github.com/grovecli/grove/core/model"
)

// turnTexts is the text of each turn's items of type typ (userMessage or
// agentMessage), in order (Codex's turn_user_texts / turn_agent_texts).
func turnTexts(turns []any, typ string) []string {
	var out []string
	for _, t := range turns {
		items, _ := t.(map[string]any)["items"].([]any)
		for _, it := range items {
			m := it.(map[string]any)
			if m["type"] != typ {
				continue
			}
			if typ == "agentMessage" {
				out = append(out, str(m, "text"))
				continue
			}
			if content, _ := m["content"].([]any); len(content) > 0 {
				out = append(out, str(content[0].(map[string]any), "text"))
			}
		}
	}
	return out
}

// thread_read.rs thread_turns_list_can_page_backward_and_forward: newest
// first in pages, nextCursor to older turns, and backwardsCursor (the
// page's newest turn) paged ascending picks up a turn added since.
func TestCodexThreadTurnsListCanPageBackwardAndForward(t *testing.T) {
	f := newFixture(t, treeScript)
	c := f.start(t)
	c.initialize()
	id := str(c.result("thread/start", map[string]any{"cwd": f.cwd}), "thread", "id")
	for _, p := range []string{"first", "second", "third"} {
		runTurn(t, c, turnInput(id, p))
	}
	c.close()

	c = f.start(t)
	defer c.close()
	c.initialize()
	r := c.result("thread/turns/list", map[string]any{"threadId": id, "limit": 2, "sortDirection": "desc"})
	data, _ := r["data"].([]any)
	if got := turnTexts(data, "userMessage"); !slices.Equal(got, []string{"third", "second"}) {
		t.Fatalf("first page: %v", got)
	}
	for _, turn := range data {
		if turn.(map[string]any)["itemsView"] != "summary" {
			t.Fatalf("default itemsView: %v", turn)
		}
	}
	next, _ := r["nextCursor"].(string)
	back, _ := r["backwardsCursor"].(string)
	if next == "" || back == "" {
		t.Fatalf("cursors: %v", r)
	}
	r = c.result("thread/turns/list", map[string]any{"threadId": id, "cursor": next, "limit": 10, "sortDirection": "desc"})
	if got := turnTexts(r["data"].([]any), "userMessage"); !slices.Equal(got, []string{"first"}) || r["nextCursor"] != nil {
		t.Fatalf("older page: %v (%v)", got, r)
	}

	c.result("thread/resume", map[string]any{"threadId": id})
	runTurn(t, c, turnInput(id, "fourth"))
	r = c.result("thread/turns/list", map[string]any{"threadId": id, "cursor": back, "limit": 10, "sortDirection": "asc"})
	if got := turnTexts(r["data"].([]any), "userMessage"); !slices.Equal(got, []string{"third", "fourth"}) {
		t.Fatalf("backwards page: %v", got)
	}
	// grove: a cursor that is no turn of the thread is refused, not read as the start.
	m := c.call("thread/turns/list", map[string]any{"threadId": id, "cursor": "nope"})
	if m["error"] == nil {
		t.Fatalf("unknown cursor accepted: %v", m)
	}
}

// draftScript answers "drafts" with a commentary message beside a tool
// call, then a final message: one turn with two agent messages (Codex's
// append_agent_message twice).
func draftScript(ctx context.Context, req model.Request) (model.Response, error) {
	if prompt, outs := lastInput(req.Items); prompt == "first" && len(outs) == 0 {
		return model.Response{Text: "draft", ToolCalls: []model.ToolCallRequest{toolCall("call-draft", "exec_command", map[string]any{"cmd": "true"})}}, nil
	}
	return model.Response{Text: "final"}, nil
}

// thread_read.rs thread_turns_list_supports_requested_items_view: full
// holds every item, summary the user message and the final agent
// message, notLoaded none, with the same turn id, status and times.
func TestCodexThreadTurnsListSupportsRequestedItemsView(t *testing.T) {
	f := newFixture(t, draftScript)
	id := storedThread(t, f, "first")
	c := f.start(t)
	defer c.close()
	c.initialize()
	single := func(view string) map[string]any {
		data, _ := c.result("thread/turns/list", map[string]any{"threadId": id, "itemsView": view})["data"].([]any)
		if len(data) != 1 {
			t.Fatalf("itemsView %s: %v", view, data)
		}
		return data[0].(map[string]any)
	}
	full := single("full")
	if got := turnTexts([]any{full}, "agentMessage"); full["itemsView"] != "full" || !slices.Equal(got, []string{"draft", "final"}) {
		t.Fatalf("full: %v", full)
	}
	summary := single("summary")
	if summary["itemsView"] != "summary" || !slices.Equal(turnTexts([]any{summary}, "userMessage"), []string{"first"}) ||
		!slices.Equal(turnTexts([]any{summary}, "agentMessage"), []string{"final"}) {
		t.Fatalf("summary: %v", summary)
	}
	notLoaded := single("notLoaded")
	if notLoaded["itemsView"] != "notLoaded" || len(notLoaded["items"].([]any)) != 0 {
		t.Fatalf("notLoaded: %v", notLoaded)
	}
	for _, k := range []string{"id", "status", "startedAt", "completedAt", "durationMs"} {
		if mustJSON(notLoaded[k]) != mustJSON(full[k]) {
			t.Fatalf("notLoaded %s = %v, full %v", k, notLoaded[k], full[k])
		}
	}
}
