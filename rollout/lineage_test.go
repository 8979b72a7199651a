package rollout

import (
	"testing"
	"time"

	"github.com/grovecli/grove/protocol"
)

// A sub-agent is archived when its root is, whatever order the lines were
// written in: the root's archive line may be older than its sub-agents'
// latest lines (read back by the lineage's own cursor) or newer. A
// sub-agent whose parent the index lost answers with its nearest ancestor
// still there.
func TestListThreadsArchivedWithTheirRoot(t *testing.T) {
	x := newIndex(t)
	archive := func(id string, on bool) {
		x.n++
		must(t, AppendIndex(x.home, IndexEntry{ID: protocol.ThreadID(id), Cwd: "/w", UpdatedAt: t0.Add(time.Duration(x.n) * time.Minute), RolloutPath: "/r/" + id, Archived: on}))
	}
	x.add("r1", "", "")
	x.add("c1", "r1", "")
	x.add("g1", "c1", "")
	x.add("r2", "", "")
	x.add("c2", "r2", "")
	archive("r1", true) // older than c1's and g1's next lines
	x.add("g1", "c1", "late")
	x.add("c1", "r1", "late")
	x.add("o1", "lost", "") // its parent has no line
	archive("r2", true)
	archive("r2", false) // unarchived again: the latest line decides

	keep := func(want bool) func(IndexEntry) bool {
		return func(e IndexEntry) bool { return e.Archived == want }
	}
	got, _, err := ListThreadsWhere(x.home, 0, 50, keep(true))
	must(t, err)
	if ids(got) != "c1 g1 r1" {
		t.Errorf("archived threads: %q, want c1 g1 r1", ids(got))
	}
	roots := map[protocol.ThreadID]protocol.ThreadID{}
	for _, e := range got {
		roots[e.ID] = e.Root
	}
	if roots["g1"] != "r1" || roots["c1"] != "r1" {
		t.Errorf("roots %v, want r1 for c1 and g1", roots)
	}
	got, _, err = ListThreadsWhere(x.home, 0, 50, keep(false))
	must(t, err)
	if ids(got) != "r2 o1 c2" {
		t.Errorf("threads not archived: %q, want r2 o1 c2", ids(got))
	}
}
