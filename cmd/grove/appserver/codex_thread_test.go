package appserver

// Thread-lifecycle cases ported from openai/codex
// codex-rs/app-server/tests/suite/v2/{thread_read,thread_start,
// thread_list,thread_resume,thread_archive,thread_fork}.rs (file and test
// named per case). Every message is validated against Codex 0.169's
// schema by the client harness.

import (
	"testing"
)

// storedThread runs one turn on a new thread and closes the server, so
// the thread is stored and not loaded (Codex's create_fake_rollout).
func storedThread(t *testing.T, f *fixture, prompt string) string {
	t.Helper()
	c := f.start(t)
	c.initialize()
	id := str(c.result("thread/start", map[string]any{"cwd": f.cwd}), "thread", "id")
	turnID := str(c.result("turn/start", turnInput(id, prompt)), "turn", "id")
	c.notification("turn/completed", func(p map[string]any) bool { return str(p, "turn", "id") == turnID })
	c.close()
	return id
}

// thread_read.rs thread_name_set_is_reflected_in_read_list_and_resume.
func TestCodexThreadNameSetReflectedInReadListAndResume(t *testing.T) {
	f := newFixture(t, treeScript)
	id := storedThread(t, f, "Saved user message")
	c := f.start(t)
	defer c.close()
	c.initialize()
	const name = "My renamed thread"
	c.result("thread/name/set", map[string]any{"threadId": id, "name": name})
	n := c.notification("thread/name/updated", nil)
	if n["threadId"] != id || n["threadName"] != name {
		t.Fatalf("thread/name/updated: %v", n)
	}
	read := c.result("thread/read", map[string]any{"threadId": id})
	if str(read, "thread", "name") != name || read["thread"].(map[string]any)["ephemeral"] != false {
		t.Fatalf("thread/read: %v", read["thread"])
	}
	data, _ := c.result("thread/list", map[string]any{"limit": 50, "modelProviders": []string{"scripted"}})["data"].([]any)
	if len(data) != 1 || str(data[0].(map[string]any), "name") != name {
		t.Fatalf("thread/list: %v", data)
	}
	resumed := c.result("thread/resume", map[string]any{"threadId": id})
	if str(resumed, "thread", "name") != name || resumed["thread"].(map[string]any)["ephemeral"] != false {
		t.Fatalf("thread/resume: %v", resumed["thread"])
	}
}

// thread_read.rs (thread/name/set on a loaded thread; Codex trims the
// name and refuses a blank one): the loaded thread reports it at once.
func TestCodexThreadNameSetOnLoadedThread(t *testing.T) {
	f := newFixture(t, treeScript)
	c := f.start(t)
	defer c.close()
	c.initialize()
	id := str(c.result("thread/start", map[string]any{"cwd": f.cwd}), "thread", "id")
	if m := c.call("thread/name/set", map[string]any{"threadId": id, "name": "  \t"}); m["error"] == nil {
		t.Fatalf("a blank name was accepted: %v", m)
	}
	c.result("thread/name/set", map[string]any{"threadId": id, "name": "  Build fix  "})
	if n := c.notification("thread/name/updated", nil); n["threadName"] != "Build fix" {
		t.Fatalf("thread/name/updated: %v", n)
	}
	if r := c.result("thread/read", map[string]any{"threadId": id}); str(r, "thread", "name") != "Build fix" {
		t.Fatalf("thread/read: %v", r)
	}
}
