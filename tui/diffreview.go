package tui

import (
	"fmt"
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/grovecli/grove/core/tools/patch"
	"github.com/grovecli/grove/protocol"
)

// diffReview is the diff review screen (ctrl+d, /diff): every hunk the
// tree's apply_patch calls wrote in this turn (t: the whole session),
// grouped per agent and file. A hunk can be accepted (marked reviewed)
// or reverted on disk (after a confirmation) through the engine, which
// writes the reverse hunk the way apply_patch writes.
type diffReview struct {
	whole bool // the whole session, not just this turn
	sel   int  // selected hunk
	// scroll is the first line shown after a pgup/pgdown; -1 keeps the
	// selected hunk in view.
	scroll    int
	collapsed map[hunkKey]bool
	folds     int // how many times a hunk was folded or unfolded
	// confirm holds the hunks a revert waits to be confirmed for.
	confirm     []reviewHunk
	confirmWhat string
	msg         string
	msgErr      bool
	busy        bool // a revert is on its way to the engine
	// layout caches the hunks and rows between renders: a long session
	// has thousands, and events re-render the screen many times a second.
	layout reviewLayout
}

// reviewLayout is the hunks and rows for one state of what they depend on.
type reviewLayout struct {
	patches, folds int
	whole          bool
	turnAt         time.Time
	hs             []reviewHunk
	rows           []reviewRow
	at             []int
	// The title's counts: files (per agent) and lines.
	files, add, del int
}

// reviewHunk is one hunk on the screen.
type reviewHunk struct {
	p    *appliedPatch
	file int
	hunk int
}

func (h reviewHunk) key() hunkKey               { return hunkKey{h.p.thread, h.p.callID, h.file, h.hunk} }
func (h reviewHunk) fp() patch.FilePatch        { return h.p.files[h.file] }
func (h reviewHunk) sameFile(o reviewHunk) bool { return h.p == o.p && h.file == o.file }

// reviewDoneMsg is the engine's answer to a revert.
type reviewDoneMsg struct {
	what string
	err  error
}

func (m *Model) openReview() {
	m.review = &diffReview{scroll: -1, collapsed: map[hunkKey]bool{}}
	if len(m.reviewHunks()) == 0 && len(m.sess.review.patches) > 0 {
		m.review.whole = true // nothing this turn: show what there is
	}
}

// reviewLayout returns the hunks shown and their rows, from the cache
// unless a patch, the scope, the turn or a fold changed.
func (m *Model) reviewLayout() ([]reviewHunk, []reviewRow, []int) {
	rv, l := m.review, &m.review.layout
	if l.hs == nil || l.patches != len(m.sess.review.patches) || l.whole != rv.whole || !l.turnAt.Equal(m.sess.review.turnAt) || l.folds != rv.folds {
		hs := m.reviewHunks()
		rows, at := m.reviewRows(hs)
		*l = reviewLayout{patches: len(m.sess.review.patches), folds: rv.folds, whole: rv.whole, turnAt: m.sess.review.turnAt,
			hs: append([]reviewHunk{}, hs...), rows: rows, at: at}
		files := map[string]bool{}
		for _, h := range hs {
			files[h.p.thread.String()+"\x00"+h.fp().Path] = true
			a, d := hunkCounts(h.fp(), h.hunk)
			l.add, l.del = l.add+a, l.del+d
		}
		l.files = len(files)
	}
	return l.hs, l.rows, l.at
}

// reviewHunks lists the hunks shown: agents in tree order, each agent's
// patches in the order they were applied.
func (m *Model) reviewHunks() []reviewHunk {
	byThread := map[protocol.ThreadID][]*appliedPatch{}
	for _, p := range m.sess.review.patches {
		if m.review.whole || !p.at.Before(m.sess.review.turnAt) {
			byThread[p.thread] = append(byThread[p.thread], p)
		}
	}
	var out []reviewHunk
	for _, id := range m.sess.treeOrder() {
		for _, p := range byThread[id] {
			for fi, f := range p.files {
				for hi := range hunkCount(f) {
					out = append(out, reviewHunk{p, fi, hi})
				}
			}
		}
	}
	return out
}

// reviewKey handles a key on the review screen.
func (m Model) reviewKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	rv := m.review
	hs, _, _ := m.reviewLayout()
	k := msg.String()
	if rv.confirm != nil {
		switch {
		case is(k, reviewKeys.ConfirmYes):
			return m, m.startRevert()
		case is(k, reviewKeys.ConfirmNo):
			rv.confirm, rv.msg = nil, "revert cancelled"
			rv.msgErr = false
		}
		return m, nil
	}
	rv.msg = ""
	cur, ok := reviewHunk{}, rv.sel < len(hs)
	if ok {
		cur = hs[rv.sel]
	}
	rk := reviewKeys
	switch {
	case is(k, rk.Close):
		m.review = nil
	case is(k, rk.Up):
		rv.sel, rv.scroll = max(0, rv.sel-1), -1
	case is(k, rk.Down):
		rv.sel, rv.scroll = min(max(0, len(hs)-1), rv.sel+1), -1
	case is(k, rk.NextFile):
		rv.sel, rv.scroll = nextFile(hs, rv.sel, 1), -1
	case is(k, rk.PrevFile):
		rv.sel, rv.scroll = nextFile(hs, rv.sel, -1), -1
	case is(k, rk.PageUp, rk.PageDown):
		step := max(1, m.bodyHeight()-4)
		if is(k, rk.PageUp) {
			step = -step
		}
		if rv.scroll < 0 {
			rv.scroll = m.reviewAnchor(m.bodyHeight())
		}
		rv.scroll = max(0, rv.scroll+step)
	case is(k, rk.Fold):
		if ok {
			rv.collapsed[cur.key()] = !rv.collapsed[cur.key()]
			rv.folds++ // the layout changed
		}
	case is(k, rk.Whole):
		rv.whole, rv.sel, rv.scroll = !rv.whole, 0, -1
	case is(k, rk.Accept, rk.AcceptFile):
		if ok {
			m.accept(hs, cur, is(k, rk.AcceptFile))
		}
	case is(k, rk.Revert, rk.RevertFile):
		if ok {
			m.askRevert(hs, cur, is(k, rk.RevertFile))
		}
	}
	return m, nil
}

// nextFile is the first hunk of the next (dir 1) or previous (dir -1)
// file section from hunk i.
func nextFile(hs []reviewHunk, i, dir int) int {
	if len(hs) == 0 {
		return 0
	}
	i = min(i, len(hs)-1)
	if dir < 0 {
		for i > 0 && hs[i-1].sameFile(hs[i]) {
			i--
		}
		if i == 0 {
			return 0
		}
		i--
		for i > 0 && hs[i-1].sameFile(hs[i]) {
			i--
		}
		return i
	}
	for j := i + 1; j < len(hs); j++ {
		if !hs[j].sameFile(hs[i]) {
			return j
		}
	}
	return i
}

// fileHunks are the hunks of cur's file section, in order.
func fileHunks(hs []reviewHunk, cur reviewHunk) []reviewHunk {
	var out []reviewHunk
	for _, h := range hs {
		if h.sameFile(cur) {
			out = append(out, h)
		}
	}
	return out
}

// accept marks a hunk (whole: its file) reviewed, or unmarks it.
func (m *Model) accept(hs []reviewHunk, cur reviewHunk, whole bool) {
	l := &m.sess.review
	if l.accepted == nil {
		l.accepted = map[hunkKey]bool{}
	}
	set := !l.accepted[cur.key()]
	targets := []reviewHunk{cur}
	if whole {
		targets = fileHunks(hs, cur)
	}
	for _, h := range targets {
		l.accepted[h.key()] = set
	}
}

// askRevert asks to confirm the revert of a hunk (whole: every hunk of
// its file not reverted yet), or says why it cannot be reverted.
func (m *Model) askRevert(hs []reviewHunk, cur reviewHunk, whole bool) {
	rv := m.review
	f := cur.fp()
	targets := []reviewHunk{cur}
	if whole {
		targets = fileHunks(hs, cur)
	}
	targets = slices.DeleteFunc(targets, func(h reviewHunk) bool { return m.sess.review.reverted[h.key()] })
	switch {
	case m.backend == nil:
		rv.msg, rv.msgErr = "no session is open", true
	case rv.busy:
		rv.msg, rv.msgErr = "a revert is still on its way", true
	case f.Op == patch.OpDelete:
		rv.msg, rv.msgErr = "a deleted file cannot be restored: apply_patch keeps no copy of its content", true
	case len(targets) == 0:
		rv.msg, rv.msgErr = "already reverted", false
	default:
		rv.confirm = targets
		rv.confirmWhat = fmt.Sprintf("hunk %d of %s", cur.hunk+1, f.Path)
		if whole {
			rv.confirmWhat = plural(len(targets), "hunk") + " of " + f.Path
		}
		if f.Op == patch.OpAdd {
			rv.confirmWhat = "the added file " + f.Path + " (it is deleted)"
		}
	}
}

// startRevert sends the confirmed revert to the engine.
func (m *Model) startRevert() tea.Cmd {
	rv := m.review
	hs, what := rv.confirm, rv.confirmWhat
	rv.confirm, rv.busy = nil, true
	rv.msg, rv.msgErr = "reverting "+what+"…", false
	p := hs[0].p
	rev := &protocol.PatchRevert{CallID: p.callID, Patch: p.input}
	for _, h := range hs {
		rev.Hunks = append(rev.Hunks, protocol.HunkRef{File: h.file, Hunk: h.hunk})
	}
	op := protocol.Op{Type: protocol.OpRevertPatch, ThreadID: p.thread, Revert: rev}
	b := m.backend
	return func() tea.Msg { return reviewDoneMsg{what: what, err: b.Submit(op)} }
}

// reviewDone shows how a revert ended; the hunks are marked by the
// patch_reverted event, which the engine publishes before it answers.
func (m *Model) reviewDone(msg reviewDoneMsg) {
	text := "reverted " + msg.what
	if msg.err != nil {
		text = msg.err.Error()
	}
	if m.review == nil {
		m.flash = text
		return
	}
	m.review.busy = false
	m.review.msg, m.review.msgErr = text, msg.err != nil
}

// revertedText is the transcript's line for a patch_reverted event.
func revertedText(rev protocol.PatchRevert) string {
	files := "files"
	if len(rev.Files) > 0 {
		files = fmt.Sprint(rev.Files)
		files = files[1 : len(files)-1]
	}
	return "↶ you reverted " + plural(len(rev.Hunks), "hunk") + " of this agent's patch in " + files
}
