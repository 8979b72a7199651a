package templates

import (
	"slices"
	"testing"
)

// TestShippedTemplatesPolicy: seed 002 (clauses 002-03, 002-17, 002-18):
// the embedded templates are the fallback; `orchestrator` sets no
// allow_list (the full toolset, spawn_agent included); `worker` and
// `explorer` allow neither spawn_agent nor anything outside their lists,
// and do allow update_plan, list_agents and list_active_agents.
func TestShippedTemplatesPolicy(t *testing.T) {
	c := Load(Dirs{GroveHome: t.TempDir(), UserHome: t.TempDir()}, Options{})
	o, err := c.Lookup("orchestrator")
	if err != nil || o.Scope != "embedded" || o.AllowList != nil {
		t.Fatalf("orchestrator = %+v, %v; want the embedded template without allow_list", o, err)
	}
	for _, n := range []string{"worker", "explorer"} {
		tp, err := c.Lookup(n)
		if err != nil || tp.Scope != "embedded" {
			t.Fatalf("%s = %+v, %v", n, tp, err)
		}
		if slices.Contains(tp.AllowList, "spawn_agent") {
			t.Errorf("%s allows spawn_agent: %v", n, tp.AllowList)
		}
		for _, want := range []string{"update_plan", "list_agents", "list_active_agents"} {
			if !slices.Contains(tp.AllowList, want) {
				t.Errorf("%s allow_list %v lacks %s", n, tp.AllowList, want)
			}
		}
	}
}
