package appserver

// thread/list sourceKinds cases ported from openai/codex
// codex-rs/app-server/tests/suite/v2/thread_list.rs (test named per case).
// grove's threads are of two kinds: roots (Codex's interactive kinds) and
// sub-agents spawned by spawn_agent (Codex's SubAgent(ThreadSpawn)), so a
// sub-agent stands in for the cases' exec and sub-agent rollouts.

import (
	"slices"
	"testing"
	"time"

	"github.com/grovecli/grove/rollout"
)

// spawnedThreads stores a root thread whose turn spawned one sub-agent
// and returns both ids.
func spawnedThreads(t *testing.T, f *fixture) (root, child string) {
	t.Helper()
	root = storedThread(t, f, "spawn")
	c := f.start(t)
	defer c.close()
	c.initialize()
	data, _ := c.result("thread/list", map[string]any{"sourceKinds": []string{"subAgent"}})["data"].([]any)
	if len(data) != 1 {
		t.Fatalf("sub-agents of the spawn turn: %v", data)
	}
	return root, str(data[0].(map[string]any), "id")
}

func listedIDs(c *client, params map[string]any) []string {
	data, _ := c.result("thread/list", params)["data"].([]any)
	ids := []string{}
	for _, d := range data {
		ids = append(ids, str(d.(map[string]any), "id"))
	}
	return ids
}

// thread_list.rs thread_list_empty_source_kinds_defaults_to_interactive_only
// (the non-interactive thread is a sub-agent: grove records no exec source).
func TestCodexThreadListEmptySourceKindsDefaultsToInteractiveOnly(t *testing.T) {
	f := newFixture(t, treeScript)
	root, _ := spawnedThreads(t, f)
	c := f.start(t)
	defer c.close()
	c.initialize()
	for _, params := range []map[string]any{{"limit": 10}, {"limit": 10, "sourceKinds": []string{}}} {
		r := c.result("thread/list", params)
		data, _ := r["data"].([]any)
		if len(data) != 1 || str(data[0].(map[string]any), "id") != root || r["nextCursor"] != nil {
			t.Fatalf("thread/list %v: %v", params, r)
		}
		if src, _ := data[0].(map[string]any)["source"].(string); src != "appServer" {
			t.Fatalf("root source: %v", data[0])
		}
	}
}

// thread_list.rs thread_list_filters_by_source_kind_subagent_thread_spawn
// (grove's sub-agent sessionId is its root's: one session, many threads).
func TestCodexThreadListFiltersBySourceKindSubagentThreadSpawn(t *testing.T) {
	f := newFixture(t, treeScript)
	root, child := spawnedThreads(t, f)
	c := f.start(t)
	defer c.close()
	c.initialize()
	data, _ := c.result("thread/list", map[string]any{"limit": 10, "sourceKinds": []string{"subAgentThreadSpawn"}})["data"].([]any)
	if len(data) != 1 {
		t.Fatalf("thread/list subAgentThreadSpawn: %v", data)
	}
	th := data[0].(map[string]any)
	src, _ := th["source"].(map[string]any)
	if th["id"] != child || child == root || src == nil || str(src, "subAgent", "thread_spawn", "parent_thread_id") != root || th["parentThreadId"] != root {
		t.Fatalf("listed sub-agent: %v", th)
	}
}

// thread_list.rs thread_list_filters_by_subagent_variant: each sub-agent
// variant lists only its own threads (grove creates no review, compact or
// other sub-agents, so those list none).
func TestCodexThreadListFiltersBySubagentVariant(t *testing.T) {
	f := newFixture(t, treeScript)
	root, child := spawnedThreads(t, f)
	c := f.start(t)
	defer c.close()
	c.initialize()
	for _, kind := range []string{"subAgentReview", "subAgentCompact", "subAgentOther"} {
		if ids := listedIDs(c, map[string]any{"sourceKinds": []string{kind}}); len(ids) != 0 {
			t.Fatalf("%s: %v", kind, ids)
		}
	}
	if ids := listedIDs(c, map[string]any{"sourceKinds": []string{"subAgentThreadSpawn"}}); len(ids) != 1 || ids[0] != child {
		t.Fatalf("subAgentThreadSpawn: %v", ids)
	}
	both := listedIDs(c, map[string]any{"sourceKinds": []string{"appServer", "subAgentThreadSpawn"}})
	if len(both) != 2 || !(both[0] == root || both[1] == root) {
		t.Fatalf("appServer and subAgentThreadSpawn: %v", both)
	}
	if m := c.call("thread/list", map[string]any{"sourceKinds": []string{"nope"}}); m["error"] == nil {
		t.Fatalf("unknown source kind accepted: %v", m)
	}
}

// thread_archive.rs thread_archive_archives_spawned_descendants, with
// thread_list.rs's sourceKinds listing: archiving a root archives its
// spawned descendants, announced deepest first (grandchild, child, root);
// thread/list's sub-agent kinds then list them only with archived: true
// (a sub-agent's own index line has no archived mark: its root's decides,
// even when the sub-agent's line is newer than the root's), and
// thread/unarchive brings the tree back. grove archives in its index, not
// by moving rollout files to archived_sessions/.
func TestCodexThreadArchiveArchivesSpawnedDescendants(t *testing.T) {
	f := newFixture(t, treeScript)
	root := storedThread(t, f, "spawn deep")
	c := f.start(t)
	defer c.close()
	c.initialize()
	subs := map[string]string{} // sub-agent → its parent
	data, _ := c.result("thread/list", map[string]any{"sourceKinds": []string{"subAgent"}})["data"].([]any)
	for _, d := range data {
		th := d.(map[string]any)
		if str(th, "sessionId") != root {
			t.Errorf("sub-agent %s: sessionId %q, want its root %s", str(th, "id"), str(th, "sessionId"), root)
		}
		subs[str(th, "id")] = str(th, "parentThreadId")
	}
	var child, grandchild string
	for id, parent := range subs {
		if parent == root {
			child = id
		}
	}
	for id, parent := range subs {
		if parent == child {
			grandchild = id
		}
	}
	if len(subs) != 2 || child == "" || grandchild == "" {
		t.Fatalf("root %s's tree: %v", root, subs)
	}

	c.result("thread/archive", map[string]any{"threadId": root})
	var announced []string
	for range 3 {
		announced = append(announced, str(c.notification("thread/archived", nil), "threadId"))
	}
	if want := []string{grandchild, child, root}; !slices.Equal(announced, want) {
		t.Fatalf("thread/archived for %v, want %v", announced, want)
	}
	// A sub-agent's line written after the archive (a late status update)
	// does not bring it back.
	late, err := rollout.FindSession(f.home, child)
	if err != nil {
		t.Fatal(err)
	}
	late.UpdatedAt = time.Now()
	if err := rollout.AppendIndex(f.home, late); err != nil {
		t.Fatal(err)
	}
	subKinds := []string{"subAgentThreadSpawn"}
	all := []string{"appServer", "subAgent"}
	for _, tc := range []struct {
		params map[string]any
		want   []string
	}{
		{map[string]any{"sourceKinds": subKinds}, nil},
		{map[string]any{"sourceKinds": all}, nil},
		{map[string]any{"sourceKinds": subKinds, "archived": true}, []string{child, grandchild}},
		{map[string]any{"sourceKinds": all, "archived": true}, []string{root, child, grandchild}},
		{map[string]any{"sourceKinds": subKinds, "archived": false, "limit": 1}, nil},
	} {
		if got := listedIDs(c, tc.params); !sameIDs(got, tc.want) {
			t.Errorf("thread/list %v after archiving: %v, want %v", tc.params, got, tc.want)
		}
	}

	c.result("thread/unarchive", map[string]any{"threadId": root})
	c.notification("thread/unarchived", func(p map[string]any) bool { return p["threadId"] == root })
	if got := listedIDs(c, map[string]any{"sourceKinds": all}); !sameIDs(got, []string{root, child, grandchild}) {
		t.Errorf("thread/list after unarchiving: %v", got)
	}
	if got := listedIDs(c, map[string]any{"sourceKinds": subKinds, "archived": true}); len(got) != 0 {
		t.Errorf("archived sub-agents after unarchiving: %v", got)
	}
}

// sameIDs: the same ids in any order.
func sameIDs(got, want []string) bool {
	a, b := slices.Clone(got), slices.Clone(want)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
