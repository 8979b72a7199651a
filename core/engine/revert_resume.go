package engine

import (
	"fmt"
	"strings"

	"github.com/grovecli/grove/core/tools/patch"
	"github.com/grovecli/grove/protocol"
)

// A revert records its intent before it writes (revert.go). A grove
// killed between the two leaves an intent with no outcome after it: the
// files may or may not be reverted, and the model that made the change
// must not go on believing its lines are there. A resume tells it, once.

// unfinishedReverts are the intents in events that no written, failed or
// already-told line follows.
func unfinishedReverts(events []protocol.Event) []protocol.PatchRevert {
	open := map[string]protocol.PatchRevert{}
	var order []string
	for _, ev := range events {
		if ev.Type != protocol.EventPatchReverted || ev.Revert == nil {
			continue
		}
		key := revertKey(*ev.Revert)
		if ev.Revert.State == protocol.RevertStarted {
			if _, seen := open[key]; !seen {
				order = append(order, key)
			}
			open[key] = *ev.Revert
			continue
		}
		delete(open, key)
	}
	var out []protocol.PatchRevert
	for _, k := range order {
		if rev, ok := open[k]; ok {
			out = append(out, rev)
			delete(open, k)
		}
	}
	return out
}

func revertKey(r protocol.PatchRevert) string {
	return fmt.Sprintf("%s %v", r.CallID, r.Hunks)
}

// tellUnfinishedReverts gives t a notice for each revert grove died in,
// and closes its intent in the rollout so the next resume does not repeat it.
func (e *Engine) tellUnfinishedReverts(t *Thread, events []protocol.Event) {
	for _, rev := range unfinishedReverts(events) {
		files := "the files it changed"
		if p, err := patch.Parse(rev.Patch); err == nil {
			var names []string
			for _, f := range p.Files {
				names = append(names, f.Path)
			}
			files = strings.Join(names, ", ")
		}
		t.notify(protocol.GroveNotice(fmt.Sprintf("[grove] grove exited while the user was reverting %d hunk(s) of your apply_patch call %s, in %s: whether the revert reached the disk is unknown. Re-read these files before you edit them again, and do not redo the reverted changes unless the user asks.", len(rev.Hunks), rev.CallID, files)))
		rev.State = protocol.RevertUnknown
		if err := t.recordRevert(rev); err != nil {
			e.warnOnce(t.id, "rollout", err)
		}
	}
}
