package appserver

// thread/list sourceKinds cases ported from openai/codex
// codex-rs/app-server/tests/suite/v2/thread_list.rs (test named per case).
// grove's threads are of two kinds: roots (Codex's interactive kinds) and
// sub-agents spawned by spawn_agent (Codex's SubAgent(ThreadSpawn)), so a
// sub-agent stands in for the cases' exec and sub-agent rollouts.

import (
	"testing"
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
