package task

import (
	"testing"
	"time"

	"github.com/grovecli/grove/templates"
)

// TestSeed004BuiltinsAndRunDefaults: seed 004 §4 (clauses 004-57, 004-58):
// Explore runs 120 s, 30 turns, without the parent's context; Plan 300 s,
// 50 turns, with it; their whenToUse texts verbatim. §3.1.2 (004-12): a
// definition without runConfig gets maxTimeSeconds 300, maxTurns 50 and
// gracePeriodSeconds 60.
func TestSeed004BuiltinsAndRunDefaults(t *testing.T) {
	cwd := project(t, map[string]string{"bare.yaml": "agentType: bare\nwhenToUse: does little\n"})
	cat := templates.Load(templates.Dirs{Cwd: cwd, GroveHome: t.TempDir()}, templates.Options{})
	r := NewRegistry(cat, Defaults{})
	for _, tc := range []struct {
		typ, whenToUse string
		maxTime        time.Duration
		maxTurns       int
		fork           bool
	}{
		{"Explore", "Fast exploration of codebases. Use for finding files, searching code, understanding structure.", 120 * time.Second, 30, false},
		{"Plan", "Creating implementation plans, designing architecture, analyzing trade-offs.", 300 * time.Second, 50, true},
		{"bare", "does little", 300 * time.Second, 50, false},
	} {
		a, ok := r.Lookup(tc.typ)
		if !ok {
			t.Fatalf("%s not found among %v", tc.typ, r.Types())
		}
		if a.WhenToUse != tc.whenToUse || a.MaxTime != tc.maxTime || a.MaxTurns != tc.maxTurns || a.ForkContext != tc.fork || a.Grace != 60*time.Second {
			t.Errorf("%s = whenToUse %q, %v, %d turns, fork %v, grace %v; want %q, %v, %d, %v, 60s",
				tc.typ, a.WhenToUse, a.MaxTime, a.MaxTurns, a.ForkContext, a.Grace, tc.whenToUse, tc.maxTime, tc.maxTurns, tc.fork)
		}
	}
}
