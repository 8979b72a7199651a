package tui

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/grovecli/grove/protocol"
)

const reviewRootPatch = "*** Begin Patch\n*** Update File: pkg/when/parse.go\n@@ func Parse(s string) (Date, error) {\n \td, err := split(s)\n-\tif leap {\n+\tif isLeap(d.Year) {\n \t\td.Day++\n@@ func isLeap(y int) bool {\n-\treturn y%4 == 0\n+\treturn y%4 == 0 && (y%100 != 0 || y%400 == 0)\n }\n*** Add File: pkg/when/leap_test.go\n+package when\n+\n+func TestLeap(t *testing.T) {}\n*** End Patch"

const reviewWorkerPatch = "*** Begin Patch\n*** Update File: README.md\n@@\n-Dates: YYYY-MM-DD\n+Dates: YYYY-MM-DD (leap years handled)\n*** Delete File: old/notes.txt\n*** End Patch"

const reviewOldPatch = "*** Begin Patch\n*** Add File: CHANGELOG.md\n+# 0.1\n*** End Patch"

func patchArgs(p string) string {
	b, _ := json.Marshal(map[string]string{"input": p})
	return string(b)
}

func patchCall(id protocol.ThreadID, call, p string, at time.Duration) []protocol.Event {
	b, e := toolBegin(id, call, "apply_patch", patchArgs(p)), toolEnd(id, call, "apply_patch", patchArgs(p), "Success. Updated the following files:")
	b.Timestamp, e.Timestamp = t0.Add(at), t0.Add(at)
	return []protocol.Event{b, e}
}

// reviewScenario: a first turn that added CHANGELOG.md, then a turn in
// which the root patched two files and a worker two more.
func reviewScenario() []protocol.Event {
	evs := append(treeScenario(), patchCall(rootID, "old1", reviewOldPatch, 2*time.Second)...)
	u := userMsg(rootID, "now fix leap years")
	u.Timestamp = t0.Add(10 * time.Second)
	evs = append(evs, u)
	evs = append(evs, patchCall(rootID, "p1", reviewRootPatch, 11*time.Second)...)
	return append(evs, patchCall(workerID, "p2", reviewWorkerPatch, 12*time.Second)...)
}

func ctrlD(m Model) Model {
	mm, _ := m.Update(tea.KeyPressMsg{Code: 'd', Mod: tea.ModCtrl})
	return mm.(Model)
}

func reviewModel(t *testing.T, w, h int) (Model, *fakeBackend) {
	fb := newFake(rootInfo())
	m, _ := newTestModel(t, w, h, fb)
	return feed(m, reviewScenario()...), fb
}

func TestGoldenDiffReview(t *testing.T) {
	for _, size := range goldenSizes {
		m, _ := reviewModel(t, size[0], size[1])
		if s := screen(m); size[0] >= 100 && !strings.Contains(s, "ctrl+d diff") {
			t.Errorf("%v: the status line does not offer the review:\n%s", size, s)
		}
		m = ctrlD(m)
		s := screen(m)
		checkSize(t, s, size[0], size[1])
		golden(t, "review_"+sizeName(size), s)
		for _, want := range []string{"Diff review · this turn", "4 files 5 hunks", "only apply_patch changes are listed", "M pkg/when/parse.go +2 -2", "› ▾ hunk 1/2 @@ func Parse(s string) (Date, error) {", "-    if leap {", "+    if isLeap(d.Year) {"} {
			if !strings.Contains(s, want) {
				t.Errorf("%v: review lacks %q:\n%s", size, want, s)
			}
		}
		if strings.Contains(s, "CHANGELOG.md") {
			t.Errorf("%v: a patch of the previous turn is listed as this turn's:\n%s", size, s)
		}
		// The worker's group names its place in the tree.
		for range 3 {
			m, _ = press(m, "down")
		}
		if s := screen(m); !strings.Contains(s, "careful (worker)  root › careful") || !strings.Contains(s, "› ▾ hunk 1/1 @@") {
			t.Errorf("%v: the worker's group:\n%s", size, s)
		}
	}
}

// TestDiffReviewRevertAsksThenSendsTheHunk: r asks first; n keeps the
// hunk; y sends revert_patch for exactly that hunk of that call, to the
// agent that made it; the engine's patch_reverted marks it.
func TestDiffReviewRevertAsksThenSendsTheHunk(t *testing.T) {
	m, fb := reviewModel(t, 100, 30)
	m = ctrlD(m)
	m, _ = press(m, "down") // hunk 2 of parse.go
	m, _ = press(m, "r")
	if s := screen(m); !strings.Contains(s, "revert hunk 2 of pkg/when/parse.go on disk?") {
		t.Fatalf("no confirmation:\n%s", s)
	}
	m, _ = press(m, "n")
	if len(fb.Ops()) != 0 || !strings.Contains(screen(m), "revert cancelled") {
		t.Fatalf("n sent %v", fb.Ops())
	}
	m, _ = press(m, "r")
	m, cmd := press(m, "y")
	if cmd == nil {
		t.Fatal("y sent nothing")
	}
	mm, _ := m.Update(cmd())
	m = mm.(Model)
	ops := fb.Ops()
	if len(ops) != 1 || ops[0].Type != protocol.OpRevertPatch || ops[0].ThreadID != rootID {
		t.Fatalf("ops: %+v", ops)
	}
	rev := ops[0].Revert
	if rev.CallID != "p1" || rev.Patch != reviewRootPatch || len(rev.Hunks) != 1 || rev.Hunks[0] != (protocol.HunkRef{File: 0, Hunk: 1}) {
		t.Fatalf("revert: %+v", rev)
	}
	if s := screen(m); !strings.Contains(s, "reverted hunk 2 of pkg/when/parse.go") {
		t.Fatalf("no result:\n%s", s)
	}
	done := ev(protocol.EventPatchReverted, rootID, 20*time.Second)
	done.Revert = &protocol.PatchRevert{CallID: "p1", Patch: reviewRootPatch, Hunks: rev.Hunks, Files: []string{"pkg/when/parse.go"}}
	m = feed(m, done)
	if s := screen(m); !strings.Contains(s, "hunk 2/2 @@ func isLeap(y int) bool { +1 -1 ↶ reverted") || !strings.Contains(s, "1 reverted") {
		t.Fatalf("the hunk is not marked reverted:\n%s", s)
	}
	m, _ = press(m, "r")
	if s := screen(m); !strings.Contains(s, "already reverted") {
		t.Fatalf("a second revert of the same hunk:\n%s", s)
	}
	// The transcript says so too (and so does a resumed one: it replays the event).
	m, _ = press(m, "esc")
	if s := screen(m); !strings.Contains(s, "↶ you reverted 1 hunk of this agent's patch in pkg/when/parse.go") {
		t.Fatalf("the transcript does not show the revert:\n%s", s)
	}
}

// TestDiffReviewFileKeysAndRefusals: R reverts every hunk of the file in
// one op; a deleted file is refused with the reason; an error from the
// engine is shown whole; a accepts and t widens the scope.
func TestDiffReviewFileKeysAndRefusals(t *testing.T) {
	m, fb := reviewModel(t, 120, 40)
	m = ctrlD(m)
	m, _ = press(m, "R")
	m, cmd := press(m, "enter")
	mm, _ := m.Update(cmd())
	m = mm.(Model)
	if ops := fb.Ops(); len(ops) != 1 || len(ops[0].Revert.Hunks) != 2 {
		t.Fatalf("R: %+v", ops)
	}
	m, _ = press(m, "tab") // the added test file
	m, _ = press(m, "a")
	if s := screen(m); !strings.Contains(s, "hunk 1/1 new file +3 -0 ✓ accepted") {
		t.Fatalf("a did not mark it:\n%s", s)
	}
	m, _ = press(m, "tab")
	m, _ = press(m, "tab") // old/notes.txt, deleted
	m, _ = press(m, "r")
	if s := screen(m); !strings.Contains(s, "a deleted file cannot be restored") {
		t.Fatalf("a deletion:\n%s", s)
	}
	m, _ = press(m, "left")
	m, _ = press(m, "r")
	m, cmd = press(m, "y")
	mm, _ = m.Update(reviewDoneMsg{what: "x", err: errString("revert: README.md changed since the patch: the lines of its hunk 1 are no longer there; nothing was reverted")})
	m = mm.(Model)
	_ = cmd
	if s := screen(m); !strings.Contains(s, "README.md changed since the patch") || !strings.Contains(s, "nothing was reverted") {
		t.Fatalf("the engine's refusal is not shown:\n%s", s)
	}
	m, _ = press(m, "t")
	if s := screen(m); !strings.Contains(s, "whole session") || !strings.Contains(s, "A CHANGELOG.md") {
		t.Fatalf("t does not show the whole session:\n%s", s)
	}
	m, _ = press(m, "esc")
	if m.review != nil {
		t.Fatal("esc did not close the review")
	}
	// /diff opens it as well; with text in the composer ctrl+d is the editor's.
	m = typeText(m, "/diff")
	m, _ = press(m, "enter")
	if m.review == nil {
		t.Fatal("/diff did not open the review")
	}
	m, _ = press(m, "esc")
	m = ctrlD(typeText(m, "draft"))
	if m.review != nil {
		t.Fatal("ctrl+d opened the review over a draft")
	}
}

type errString string

func (e errString) Error() string { return string(e) }

// TestDiffReviewEmpty: with no patch at all the screen says so.
func TestDiffReviewEmpty(t *testing.T) {
	m, _ := newTestModel(t, 80, 24, newFake(rootInfo()))
	m = ctrlD(feed(m, treeScenario()...))
	if s := screen(m); !strings.Contains(s, "no patches: the agents applied none in this session") {
		t.Fatalf("empty review:\n%s", s)
	}
}

func pressDown(m Model) Model { m, _ = press(m, "down"); return m }

// TestDiffReviewSmallKeepsFileNamed: in a short window the selected hunk
// comes into view, and its agent and file stay named above it.
func TestDiffReviewSmallKeepsFileNamed(t *testing.T) {
	m, _ := reviewModel(t, 40, 12)
	m = ctrlD(m)
	if s := screen(m); !strings.Contains(s, "root · M pkg/when/parse.go\n  › ▾ hunk 1/2") {
		t.Fatalf("a long first hunk: its header first, under its agent and file:\n%s", s)
	}
	for range 3 {
		m = pressDown(m)
	}
	s := screen(m)
	checkSize(t, s, 40, 12)
	if !strings.Contains(s, "careful\n  M README.md") || !strings.Contains(s, "› ▾ hunk 1/1 @@ +1 -1") {
		t.Fatalf("the selected hunk or its file is off screen:\n%s", s)
	}
}

// BenchmarkDiffReviewRender renders the review of a long session: 50
// agents, 400 patches of three hunks each (whole session), selection in
// the middle.
func BenchmarkDiffReviewRender(b *testing.B) {
	fb := newFake(rootInfo())
	m := NewModel(Options{Backend: fb, Now: func() time.Time { return t0.Add(time.Hour) }})
	mm, _ := m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m = mm.(Model)
	evs := fiftyAgents()
	order := []protocol.ThreadID{rootID}
	for _, e := range evs {
		if e.Type == protocol.EventThreadStarted {
			order = append(order, e.ThreadID)
		}
	}
	for i := range 400 {
		p := strings.ReplaceAll(reviewRootPatch, "parse.go", "parse"+strings.Repeat("x", i%7)+".go")
		evs = append(evs, patchCall(order[i%len(order)], "c"+strconv.Itoa(i), p, time.Duration(i)*time.Second)...)
	}
	m = feed(m, evs...)
	m = ctrlD(m)
	m.review.whole = true
	for range 600 {
		m = pressDown(m)
	}
	b.Run("review", func(b *testing.B) {
		for b.Loop() {
			_ = m.render()
		}
	})
	// The same session's main screen, for comparison.
	m.review = nil
	b.Run("main screen", func(b *testing.B) {
		for b.Loop() {
			_ = m.render()
		}
	})
}

// TestDiffReviewFoldsAndNewPatches: folding hides a hunk's lines and
// unfolding shows them again; a patch that lands while the screen is open
// is listed at once.
func TestDiffReviewFoldsAndNewPatches(t *testing.T) {
	m, _ := reviewModel(t, 120, 40)
	m = ctrlD(m)
	m, _ = press(m, "enter")
	m = pressDown(m)
	m, _ = press(m, "enter")
	m, _ = press(m, "up")
	m, _ = press(m, "enter") // hunk 1 open again, hunk 2 folded
	s := screen(m)
	if !strings.Contains(s, "+    if isLeap(d.Year) {") || strings.Contains(s, "y%400") || !strings.Contains(s, "▸ hunk 2/2") {
		t.Fatalf("folds:\n%s", s)
	}
	m = feed(m, patchCall(explorerID, "p9", "*** Begin Patch\n*** Add File: NOTES.md\n+found it\n*** End Patch", 25*time.Second)...)
	if s := screen(m); !strings.Contains(s, "5 files 6 hunks") || !strings.Contains(s, "A NOTES.md") {
		t.Fatalf("a new patch is not listed:\n%s", s)
	}
	// The same events again (a replay over live ones) add nothing.
	m = feed(m, patchCall(rootID, "p1", reviewRootPatch, 11*time.Second)...)
	if s := screen(m); !strings.Contains(s, "5 files 6 hunks") {
		t.Fatalf("a replayed patch is listed twice:\n%s", s)
	}
}
