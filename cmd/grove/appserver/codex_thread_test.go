package appserver

// Thread-lifecycle cases ported from openai/codex
// codex-rs/app-server/tests/suite/v2/{thread_read,thread_start,
// thread_list,thread_resume,thread_archive,thread_fork}.rs (file and test
// named per case). Every message is validated against Codex 0.169's
// schema by the client harness.

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/grovecli/grove/core/config"
	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
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

// threadStartedFirst waits for thread/started of id and fails on a
// thread/status/changed of id before it (Codex introduces a thread
// without a preceding status change).
func threadStartedFirst(t *testing.T, c *client, id string) map[string]any {
	t.Helper()
	started := c.notification("thread/started", func(p map[string]any) bool { return str(p, "thread", "id") == id })
	for _, m := range c.backlog {
		if m["method"] == "thread/status/changed" && str(m["params"].(map[string]any), "threadId") == id {
			t.Fatalf("thread/status/changed before thread/started: %v", m)
		}
	}
	return started
}

// thread_start.rs thread_start_creates_thread_and_emits_started.
func TestCodexThreadStartCreatesThreadAndEmitsStarted(t *testing.T) {
	f := newFixture(t, treeScript)
	c := f.start(t)
	defer c.close()
	c.initialize()
	r := c.call("thread/start", map[string]any{"model": "gpt-5.2", "threadSource": "user"})
	res := r["result"].(map[string]any)
	th := res["thread"].(map[string]any)
	path := str(th, "path")
	if str(th, "sessionId") == "" || str(th, "id") == "" || th["preview"] != "" || res["modelProvider"] != "scripted" ||
		th["createdAt"].(float64) <= 0 || th["ephemeral"] != false || str(th, "status", "type") != "idle" || th["threadSource"] != "user" {
		t.Fatalf("thread/start: %v", res)
	}
	if !filepath.IsAbs(path) || fileExists(path) {
		t.Fatalf("path %q: absolute, and no rollout before the first user message", path)
	}
	if v, ok := th["name"]; !ok || v != nil {
		t.Fatalf("name must be serialized as null: %v", th)
	}
	if _, ok := res["sessionId"]; ok {
		t.Fatalf("a top-level sessionId: %v", res)
	}
	started := threadStartedFirst(t, c, str(th, "id"))
	if mustJSON(started["thread"]) != mustJSON(th) {
		t.Fatalf("thread/started %s, want the answered thread %s", mustJSON(started["thread"]), mustJSON(th))
	}
}

// thread_start.rs thread_start_response_includes_loaded_instruction_sources
// (the global file is the Host's configured AGENTS.md).
func TestCodexThreadStartIncludesInstructionSources(t *testing.T) {
	f := newFixture(t, treeScript)
	global := filepath.Join(t.TempDir(), "AGENTS.md")
	project := filepath.Join(f.cwd, "AGENTS.md")
	for p, text := range map[string]string{global: "global instructions", project: "project instructions"} {
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cfg := &config.Config{UserAgentsMD: "global instructions", UserAgentsMDPath: global}
	c := f.startWith(t, Options{Host: &Host{Config: cfg, Provider: config.Resolved{Name: "scripted", Model: "scripted-model"}}})
	defer c.close()
	c.initialize()
	r := c.result("thread/start", map[string]any{"cwd": f.cwd})
	if got := mustJSON(r["instructionSources"]); got != mustJSON([]string{global, project}) {
		t.Fatalf("instructionSources %s", got)
	}
}

// thread_start.rs thread_start_response_excludes_empty_project_instruction_source.
func TestCodexThreadStartExcludesEmptyProjectInstructionSource(t *testing.T) {
	f := newFixture(t, treeScript)
	if err := os.WriteFile(filepath.Join(f.cwd, "AGENTS.md"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	c := f.start(t)
	defer c.close()
	c.initialize()
	r := c.result("thread/start", map[string]any{"cwd": f.cwd})
	if got := mustJSON(r["instructionSources"]); got != "[]" {
		t.Fatalf("instructionSources %s, want none", got)
	}
}

// thread_start.rs thread_start_accepts_absolute_runtime_workspace_roots:
// the roots are answered, and the thread's sandbox may write them.
func TestCodexThreadStartAcceptsAbsoluteRuntimeWorkspaceRoots(t *testing.T) {
	f := newFixture(t, treeScript)
	extra := filepath.Join(f.cwd, "extra-root")
	if err := os.MkdirAll(extra, 0o700); err != nil {
		t.Fatal(err)
	}
	c := f.start(t)
	defer c.close()
	c.initialize()
	r := c.result("thread/start", map[string]any{"cwd": f.cwd, "runtimeWorkspaceRoots": []string{extra, extra + "/."}})
	if r["cwd"] != f.cwd || mustJSON(r["runtimeWorkspaceRoots"]) != mustJSON([]string{extra}) {
		t.Fatalf("thread/start: cwd %v, runtimeWorkspaceRoots %v", r["cwd"], r["runtimeWorkspaceRoots"])
	}
	if roots, _ := r["sandbox"].(map[string]any)["writableRoots"].([]any); !slices.Contains(roots, any(extra)) {
		t.Fatalf("sandbox %v: the runtime root is not writable", r["sandbox"])
	}
	m := c.call("thread/start", map[string]any{"cwd": f.cwd, "runtimeWorkspaceRoots": []string{"extra-root"}})
	if e, _ := m["error"].(map[string]any); e == nil || !strings.Contains(str(e, "message"), "not an absolute path") {
		t.Fatalf("a relative runtime root: %v", m)
	}
}

// thread_start.rs
// thread_start_excludes_profile_workspace_roots_from_runtime_workspace_roots:
// the configuration's writable roots stay the sandbox's, but the thread's
// runtime roots are its cwd alone.
func TestCodexThreadStartExcludesProfileWorkspaceRootsFromRuntimeWorkspaceRoots(t *testing.T) {
	f := newFixture(t, treeScript)
	profileRoot := t.TempDir()
	f.tune = func(o *engine.Options) { o.Sandbox.WritableRoots = append(o.Sandbox.WritableRoots, profileRoot) }
	c := f.start(t)
	defer c.close()
	c.initialize()
	r := c.result("thread/start", map[string]any{"cwd": f.cwd})
	if mustJSON(r["runtimeWorkspaceRoots"]) != mustJSON([]string{f.cwd}) {
		t.Fatalf("runtimeWorkspaceRoots %v, want the cwd", r["runtimeWorkspaceRoots"])
	}
}

// thread_fork.rs thread_fork_creates_new_thread_and_emits_started.
func TestCodexThreadForkCreatesNewThreadAndEmitsStarted(t *testing.T) {
	f := newFixture(t, treeScript)
	src := storedThread(t, f, "Saved user message")
	entry, err := rollout.FindSession(f.home, src)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(entry.RolloutPath)
	c := f.start(t)
	defer c.close()
	c.initialize()
	th := c.result("thread/fork", map[string]any{"threadId": src})["thread"].(map[string]any)
	if v, ok := th["name"]; !ok || v != nil {
		t.Fatalf("a fork inherits no name: %v", th)
	}
	if after, _ := os.ReadFile(entry.RolloutPath); string(after) != string(before) {
		t.Fatal("the fork changed the original rollout")
	}
	turns, _ := th["turns"].([]any)
	if str(th, "id") == src || th["forkedFromId"] != src || th["preview"] != "Saved user message" || th["modelProvider"] != "scripted" ||
		str(th, "status", "type") != "idle" || str(th, "path") == entry.RolloutPath || !filepath.IsAbs(str(th, "path")) || len(turns) != 1 {
		t.Fatalf("thread/fork: %v", th)
	}
	items, _ := turns[0].(map[string]any)["items"].([]any)
	if len(items) == 0 || str(items[0].(map[string]any), "type") != "userMessage" || !strings.Contains(mustJSON(items[0]), "Saved user message") {
		t.Fatalf("forked turn: %v", turns[0])
	}
	started := threadStartedFirst(t, c, str(th, "id"))
	if v, ok := started["thread"].(map[string]any)["name"]; !ok || v != nil || mustJSON(started["thread"]) != mustJSON(th) {
		t.Fatalf("thread/started %v, want the answered thread %v", started, th)
	}
}

// thread_fork.rs thread_fork_rejects_unmaterialized_thread.
func TestCodexThreadForkRejectsUnmaterializedThread(t *testing.T) {
	f := newFixture(t, treeScript)
	c := f.start(t)
	defer c.close()
	c.initialize()
	id := str(c.result("thread/start", map[string]any{"model": "mock-model"}), "thread", "id")
	m := c.call("thread/fork", map[string]any{"threadId": id})
	if e, _ := m["error"].(map[string]any); e == nil || !strings.Contains(str(e, "message"), "no rollout found for thread id") {
		t.Fatalf("thread/fork before the first message: %v", m)
	}
}

// thread_fork.rs thread_fork_ephemeral_remains_pathless_and_omits_listing:
// the fork reads its source from the user's store and keeps its own files
// in a store of its own (cmd/grove's factory: app.Options.Ephemeral).
func TestCodexThreadForkEphemeralRemainsPathlessAndOmitsListing(t *testing.T) {
	f := newFixture(t, treeScript)
	src := storedThread(t, f, "Saved user message")
	f.build = func(ctx context.Context, cfg ThreadConfig) (*engine.Engine, error) {
		if !cfg.Ephemeral {
			return f.factoryAt(ctx, cfg, f.home)
		}
		f.tune = func(o *engine.Options) { o.ForkHome = f.home }
		defer func() { f.tune = nil }()
		return f.factoryAt(ctx, cfg, t.TempDir())
	}
	c := f.start(t)
	defer c.close()
	c.initialize()
	r := c.call("thread/fork", map[string]any{"threadId": src, "ephemeral": true})
	th := r["result"].(map[string]any)["thread"].(map[string]any)
	forkID := str(th, "id")
	if th["ephemeral"] != true {
		t.Fatalf("ephemeral forks should be marked explicitly: %v", th)
	}
	if v, ok := th["path"]; !ok || v != nil {
		t.Fatalf("ephemeral forks should not expose a path: %v", th)
	}
	if v, ok := th["name"]; th["preview"] != "Saved user message" || str(th, "status", "type") != "idle" || !ok || v != nil {
		t.Fatalf("thread/fork: %v", th)
	}
	turns, _ := th["turns"].([]any)
	if len(turns) != 1 {
		t.Fatalf("expected copied fork history: %v", turns)
	}
	// Codex's fake rollout holds the user message only; storedThread's
	// turn also has the model's reply. A stored userMessage has no
	// text_elements (CodexCaseDeviations, thread_read.rs).
	turn := turns[0].(map[string]any)
	items, _ := turn["items"].([]any)
	if turn["status"] != "completed" || len(items) == 0 || str(items[0].(map[string]any), "type") != "userMessage" ||
		mustJSON(items[0].(map[string]any)["content"]) != `[{"text":"Saved user message","type":"text"}]` {
		t.Fatalf("forked turn: %v", turn)
	}
	started := threadStartedFirst(t, c, forkID)
	if mustJSON(started["thread"]) != mustJSON(th) {
		t.Fatalf("thread/started %s, want the answered thread %s", mustJSON(started["thread"]), mustJSON(th))
	}
	data, _ := c.result("thread/list", map[string]any{"limit": 10})["data"].([]any)
	listed := map[string]bool{}
	for _, d := range data {
		listed[str(d.(map[string]any), "id")] = true
	}
	if listed[forkID] || !listed[src] {
		t.Fatalf("thread/list %v: the ephemeral fork must be missing, its source listed", listed)
	}
	turnID := str(c.result("turn/start", turnInput(forkID, "continue")), "turn", "id")
	c.notification("turn/completed", func(p map[string]any) bool { return str(p, "turn", "id") == turnID })
}

// thread_archive.rs thread_archive_requires_materialized_rollout.
func TestCodexThreadArchiveRequiresMaterializedRollout(t *testing.T) {
	f := newFixture(t, treeScript)
	c := f.start(t)
	defer c.close()
	c.initialize()
	th := c.result("thread/start", map[string]any{"model": "mock-model"})["thread"].(map[string]any)
	id, path := str(th, "id"), str(th, "path")
	if fileExists(path) {
		t.Fatalf("rollout %s exists before the first message", path)
	}
	if _, err := rollout.FindSession(f.home, id); err == nil {
		t.Fatal("the thread is discoverable before its rollout exists")
	}
	m := c.call("thread/archive", map[string]any{"threadId": id})
	if e, _ := m["error"].(map[string]any); e == nil || !strings.Contains(str(e, "message"), "no rollout found for thread id") {
		t.Fatalf("thread/archive before the first message: %v", m)
	}
	turnID := str(c.result("turn/start", turnInput(id, "materialize")), "turn", "id")
	c.notification("turn/completed", func(p map[string]any) bool { return str(p, "turn", "id") == turnID })
	if !fileExists(path) {
		t.Fatalf("rollout %s missing after the first message", path)
	}
	if e, err := rollout.FindSession(f.home, id); err != nil || e.RolloutPath != path {
		t.Fatalf("index entry %v %v", e, err)
	}
	c.result("thread/archive", map[string]any{"threadId": id})
	if n := c.notification("thread/archived", nil); n["threadId"] != id {
		t.Fatalf("thread/archived %v", n)
	}
	// The archived file keeps its name, in archived_sessions/.
	archived := filepath.Join(f.home, rollout.ArchivedDir, filepath.Base(path))
	if fileExists(path) || !fileExists(archived) {
		t.Fatalf("rollout %s not moved to %s", path, archived)
	}
}

// thread_archive.rs thread_archive_archives_spawned_descendants, the
// rollouts as Codex's test makes them (its spawn edges are the rollouts'
// parent ids: grove keeps no state db): each moves to archived_sessions/.
func TestCodexThreadArchiveMovesSpawnedDescendantsToArchivedSessions(t *testing.T) {
	f := newFixture(t, treeScript)
	ids := fakeTree(t, f.home, "parent", "child", "grandchild")
	c := f.start(t)
	defer c.close()
	c.initialize()
	c.result("thread/archive", map[string]any{"threadId": ids[0]})
	var archived []string
	for range 3 {
		n := c.notification("thread/archived", func(p map[string]any) bool {
			return !slices.Contains(archived, str(p, "threadId"))
		})
		archived = append(archived, str(n, "threadId"))
	}
	if want := []string{ids[2], ids[1], ids[0]}; !slices.Equal(archived, want) {
		t.Fatalf("thread/archived %v, want %v", archived, want)
	}
	for _, id := range ids {
		e, err := rollout.FindSession(f.home, id)
		if err != nil || !e.Archived || filepath.Dir(e.RolloutPath) != filepath.Join(f.home, rollout.ArchivedDir) || !fileExists(e.RolloutPath) {
			t.Fatalf("expected the rollout of %s archived: %+v %v", id, e, err)
		}
	}
}

// thread_archive.rs thread_archive_fails_when_spawned_descendant_is_missing.
func TestCodexThreadArchiveFailsWhenSpawnedDescendantIsMissing(t *testing.T) {
	f := newFixture(t, treeScript)
	ids := fakeTree(t, f.home, "parent", "child")
	child, err := rollout.FindSession(f.home, ids[1])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(child.RolloutPath); err != nil {
		t.Fatal(err)
	}
	c := f.start(t)
	defer c.close()
	c.initialize()
	m := c.call("thread/archive", map[string]any{"threadId": ids[0]})
	if e, _ := m["error"].(map[string]any); e == nil || !strings.Contains(str(e, "message"), "no rollout found for thread id") {
		t.Fatalf("thread/archive with a missing descendant: %v", m)
	}
	if e, err := rollout.FindSession(f.home, ids[0]); err != nil || e.Archived || !fileExists(e.RolloutPath) {
		t.Fatalf("the parent was archived: %+v %v", e, err)
	}
}

// thread_unarchive.rs thread_unarchive_moves_rollout_back_into_sessions_directory.
func TestCodexThreadUnarchiveMovesRolloutBackIntoSessionsDirectory(t *testing.T) {
	f := newFixture(t, treeScript)
	c := f.start(t)
	defer c.close()
	c.initialize()
	th := c.result("thread/start", map[string]any{"model": "mock-model"})["thread"].(map[string]any)
	id, path := str(th, "id"), str(th, "path")
	turnID := str(c.result("turn/start", turnInput(id, "materialize")), "turn", "id")
	c.notification("turn/completed", func(p map[string]any) bool { return str(p, "turn", "id") == turnID })
	if e, err := rollout.FindSession(f.home, id); err != nil || e.RolloutPath != path {
		t.Fatalf("rollout of %s: %+v %v", id, e, err)
	}
	c.result("thread/archive", map[string]any{"threadId": id})
	e, err := rollout.FindSession(f.home, id)
	if err != nil || !e.Archived || !fileExists(e.RolloutPath) {
		t.Fatalf("expected the archived rollout: %+v %v", e, err)
	}
	archivedPath := e.RolloutPath
	old := time.Unix(1, 0)
	if err := os.Chtimes(archivedPath, old, old); err != nil {
		t.Fatal(err)
	}
	r := c.call("thread/unarchive", map[string]any{"threadId": id})
	res, _ := r["result"].(map[string]any)
	if res == nil {
		t.Fatalf("thread/unarchive: %v", r)
	}
	if n := c.notification("thread/unarchived", nil); n["threadId"] != id {
		t.Fatalf("thread/unarchived %v", n)
	}
	un := res["thread"].(map[string]any)
	if un["updatedAt"].(float64) <= float64(old.Unix()) || str(un, "status", "type") != "notLoaded" {
		t.Fatalf("unarchived thread: %v", un)
	}
	if v, ok := un["name"]; !ok || v != nil {
		t.Fatalf("thread/unarchive must serialize name: null: %v", un)
	}
	if !fileExists(path) || fileExists(archivedPath) {
		t.Fatalf("rollout not restored to %s (archived %s)", path, archivedPath)
	}
}

// thread_resume.rs thread_resume_rejects_archived_session_by_id and
// thread_fork_rejects_archived_session_by_id (Codex names `codex
// unarchive`; grove names `grove unarchive`).
func TestCodexThreadResumeAndForkRejectArchivedSessionByID(t *testing.T) {
	f := newFixture(t, treeScript)
	id := fakeTree(t, f.home, "Archived saved user message")[0]
	if _, err := rollout.Archive(f.home, protocol.ThreadID(id)); err != nil {
		t.Fatal(err)
	}
	c := f.start(t)
	defer c.close()
	c.initialize()
	for _, method := range []string{"thread/resume", "thread/fork"} {
		m := c.call(method, map[string]any{"threadId": id})
		e, _ := m["error"].(map[string]any)
		if msg := str(e, "message"); e == nil || !strings.Contains(msg, "session "+id+" is archived") ||
			!strings.Contains(msg, "`grove unarchive "+id+"` to unarchive it first") {
			t.Fatalf("%s of an archived session: %v", method, m)
		}
	}
}

// fakeTree stores a root session and a chain of sub-agents below it, one
// user message each (Codex's create_fake_rollout with spawn edges), and
// returns their ids, root first.
func fakeTree(t *testing.T, home string, prompts ...string) []string {
	t.Helper()
	var ids []string
	parent := protocol.ThreadID("")
	for depth, prompt := range prompts {
		id := protocol.NewThreadID()
		meta := rollout.SessionMeta{ID: id, ParentID: parent, Depth: depth, Source: protocol.SourceRoot, Model: "mock-model", Provider: "mock_provider", Cwd: home}
		if parent != "" {
			meta.Source = protocol.SourceSpawned
		}
		r, err := rollout.Create(home, meta)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.AppendItem(protocol.Item{Type: protocol.ItemMessage, Role: protocol.RoleUser, Content: prompt}); err != nil {
			t.Fatal(err)
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		e := rollout.IndexEntry{ID: id, ParentID: parent, Cwd: home, RolloutPath: r.Path(), FirstPrompt: prompt, Provider: "mock_provider", UpdatedAt: time.Now()}
		if err := rollout.AppendIndex(home, e); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, string(id))
		parent = id
	}
	return ids
}

// thread_read.rs thread_read_returns_summary_without_turns.
func TestCodexThreadReadReturnsSummaryWithoutTurns(t *testing.T) {
	f := newFixture(t, treeScript)
	id := storedThread(t, f, "Saved user message")
	c := f.start(t)
	defer c.close()
	c.initialize()
	th := c.result("thread/read", map[string]any{"threadId": id, "includeTurns": false})["thread"].(map[string]any)
	if th["id"] != id || th["preview"] != "Saved user message" || th["modelProvider"] != "scripted" || th["ephemeral"] != false ||
		!filepath.IsAbs(str(th, "path")) || th["cwd"] != f.cwd || len(th["turns"].([]any)) != 0 || str(th, "status", "type") != "notLoaded" {
		t.Fatalf("thread/read: %v", th)
	}
}

// thread_read.rs thread_read_can_include_turns.
func TestCodexThreadReadCanIncludeTurns(t *testing.T) {
	f := newFixture(t, treeScript)
	id := storedThread(t, f, "Saved user message")
	c := f.start(t)
	defer c.close()
	c.initialize()
	th := c.result("thread/read", map[string]any{"threadId": id, "includeTurns": true})["thread"].(map[string]any)
	turns, _ := th["turns"].([]any)
	if len(turns) != 1 || str(th, "status", "type") != "notLoaded" {
		t.Fatalf("thread/read: %v", th)
	}
	turn := turns[0].(map[string]any)
	items, _ := turn["items"].([]any)
	if turn["status"] != "completed" || turn["itemsView"] != "full" || len(items) == 0 {
		t.Fatalf("turn: %v", turn)
	}
	first := items[0].(map[string]any)
	content, _ := first["content"].([]any)
	if first["type"] != "userMessage" || len(content) != 1 || str(content[0].(map[string]any), "text") != "Saved user message" {
		t.Fatalf("first item: %v", first)
	}
}

// thread_read.rs thread_read_returns_forked_from_id_for_forked_threads.
func TestCodexThreadReadReturnsForkedFromID(t *testing.T) {
	f := newFixture(t, treeScript)
	src := storedThread(t, f, "Saved user message")
	c := f.start(t)
	defer c.close()
	c.initialize()
	forkID := str(c.result("thread/fork", map[string]any{"threadId": src}), "thread", "id")
	if th := c.result("thread/read", map[string]any{"threadId": forkID})["thread"].(map[string]any); th["forkedFromId"] != src {
		t.Fatalf("thread/read of the fork: %v", th)
	}
}

// thread_read.rs thread_read_loaded_thread_returns_precomputed_path_before_materialization.
func TestCodexThreadReadLoadedThreadPathBeforeMaterialization(t *testing.T) {
	f := newFixture(t, treeScript)
	c := f.start(t)
	defer c.close()
	c.initialize()
	th := c.result("thread/start", map[string]any{"model": "mock-model"})["thread"].(map[string]any)
	path := str(th, "path")
	if fileExists(path) {
		t.Fatal("rollout written before the first message")
	}
	read := c.result("thread/read", map[string]any{"threadId": str(th, "id")})["thread"].(map[string]any)
	if read["id"] != th["id"] || str(read, "path") != path || read["preview"] != "" || len(read["turns"].([]any)) != 0 || str(read, "status", "type") != "idle" {
		t.Fatalf("thread/read: %v", read)
	}
}

// thread_read.rs thread_read_include_turns_rejects_unmaterialized_loaded_thread.
func TestCodexThreadReadIncludeTurnsRejectsUnmaterialized(t *testing.T) {
	f := newFixture(t, treeScript)
	c := f.start(t)
	defer c.close()
	c.initialize()
	id := str(c.result("thread/start", map[string]any{"model": "mock-model"}), "thread", "id")
	m := c.call("thread/read", map[string]any{"threadId": id, "includeTurns": true})
	if e, _ := m["error"].(map[string]any); e == nil || !strings.Contains(str(e, "message"), "includeTurns is unavailable before first user message") {
		t.Fatalf("thread/read includeTurns before the first message: %v", m)
	}
}

// turn_interrupt.rs turn_interrupt_aborts_running_turn.
func TestCodexTurnInterruptAbortsRunningTurn(t *testing.T) {
	blocked := make(chan struct{}, 1)
	f := newFixture(t, blockingScript(blocked))
	c := f.start(t)
	defer c.close()
	c.initialize()
	id := str(c.result("thread/start", map[string]any{"model": "mock-model"}), "thread", "id")
	turnID := str(c.result("turn/start", withOverrides(turnInput(id, "block"), "cwd", f.cwd)), "turn", "id")
	<-blocked
	c.result("turn/interrupt", map[string]any{"threadId": id, "turnId": turnID})
	tc := c.notification("turn/completed", nil)
	if tc["threadId"] != id || str(tc, "turn", "status") != "interrupted" {
		t.Fatalf("turn/completed: %v", tc)
	}
}

// turn_interrupt.rs turn_interrupt_rejects_completed_turn.
func TestCodexTurnInterruptRejectsCompletedTurn(t *testing.T) {
	f := newFixture(t, treeScript)
	c := f.start(t)
	defer c.close()
	c.initialize()
	id := str(c.result("thread/start", map[string]any{"model": "mock-model"}), "thread", "id")
	turnID := str(c.result("turn/start", turnInput(id, "say done")), "turn", "id")
	tc := c.notification("turn/completed", nil)
	if tc["threadId"] != id || str(tc, "turn", "id") != turnID || str(tc, "turn", "status") != "completed" {
		t.Fatalf("turn/completed: %v", tc)
	}
	m := c.call("turn/interrupt", map[string]any{"threadId": id, "turnId": turnID})
	if e, _ := m["error"].(map[string]any); e == nil || e["code"] != float64(-32600) {
		t.Fatalf("interrupt of a completed turn: %v", m)
	}
}

// thread_resume.rs thread_resume_rejects_unmaterialized_thread.
func TestCodexThreadResumeRejectsUnmaterializedThread(t *testing.T) {
	f := newFixture(t, treeScript)
	c := f.start(t)
	defer c.close()
	c.initialize()
	id := str(c.result("thread/start", map[string]any{"model": "gpt-5.4"}), "thread", "id")
	m := c.call("thread/resume", map[string]any{"threadId": id})
	if e, _ := m["error"].(map[string]any); e == nil || !strings.Contains(str(e, "message"), "no rollout found for thread id") {
		t.Fatalf("thread/resume before the first message: %v", m)
	}
}

// thread_resume.rs thread_resume_running_thread_uses_cached_instruction_sources.
func TestCodexThreadResumeRunningThreadUsesCachedInstructionSources(t *testing.T) {
	f := newFixture(t, treeScript)
	project := filepath.Join(f.cwd, "AGENTS.md")
	if err := os.WriteFile(project, []byte("project instructions"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := f.start(t)
	defer c.close()
	c.initialize()
	r := c.result("thread/start", map[string]any{"cwd": f.cwd})
	if got := mustJSON(r["instructionSources"]); got != mustJSON([]string{project}) {
		t.Fatalf("thread/start instructionSources %s", got)
	}
	id := str(r, "thread", "id")
	turnID := str(c.result("turn/start", turnInput(id, "materialize rollout")), "turn", "id")
	c.notification("turn/completed", func(p map[string]any) bool { return str(p, "turn", "id") == turnID })
	if err := os.Remove(project); err != nil {
		t.Fatal(err)
	}
	if got := mustJSON(c.result("thread/resume", map[string]any{"threadId": id})["instructionSources"]); got != mustJSON([]string{project}) {
		t.Fatalf("thread/resume instructionSources %s", got)
	}
}

// thread_list.rs thread_list_basic_empty.
func TestCodexThreadListBasicEmpty(t *testing.T) {
	f := newFixture(t, treeScript)
	c := f.start(t)
	defer c.close()
	c.initialize()
	r := c.result("thread/list", map[string]any{"limit": 10, "modelProviders": []string{"mock_provider"}})
	if data, _ := r["data"].([]any); len(data) != 0 || r["nextCursor"] != nil {
		t.Fatalf("thread/list: %v", r)
	}
}

// thread_list.rs thread_list_pagination_next_cursor_none_on_last_page (an
// unloaded thread is notLoaded, as thread_read.rs reads it; the stored
// thread_list.rs predates that status and says idle).
func TestCodexThreadListPaginationNextCursorNoneOnLastPage(t *testing.T) {
	f := newFixture(t, treeScript)
	for i := 0; i < 3; i++ {
		storedThread(t, f, "Hello")
	}
	c := f.start(t)
	defer c.close()
	c.initialize()
	page := func(cursor any) ([]any, any) {
		r := c.result("thread/list", map[string]any{"limit": 2, "cursor": cursor, "modelProviders": []string{"scripted"}})
		data, _ := r["data"].([]any)
		for _, d := range data {
			th := d.(map[string]any)
			if th["preview"] != "Hello" || th["modelProvider"] != "scripted" || th["createdAt"].(float64) <= 0 || th["cwd"] != f.cwd ||
				str(th, "status", "type") != "notLoaded" {
				t.Fatalf("listed thread: %v", th)
			}
		}
		return data, r["nextCursor"]
	}
	data, cursor := page(nil)
	if len(data) != 2 || cursor == nil {
		t.Fatalf("first page: %d threads, cursor %v", len(data), cursor)
	}
	data, cursor = page(cursor)
	if len(data) != 1 || cursor != nil {
		t.Fatalf("last page: %d threads, cursor %v", len(data), cursor)
	}
}
