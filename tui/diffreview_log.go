package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/grovecli/grove/core/tools/patch"
	"github.com/grovecli/grove/protocol"
)

// The diff review screen lists the patches grove applied: every
// apply_patch call that succeeded, from the live events or, after a
// resume, from the rollout's events replayed through the same apply. Files
// that commands (exec_command) changed are not patches and are not listed:
// telling what a command wrote would need a snapshot of the workspace
// before every command, which grove does not take.

// reviewLog is what the screen reads, kept by session.apply.
type reviewLog struct {
	patches []*appliedPatch
	// turnAt is when the root's current (or last) turn began: the time of
	// its last user message. "This turn" is every patch since.
	turnAt time.Time
	// reverted holds the hunks a patch_reverted event reported.
	reverted map[hunkKey]bool
	// accepted holds the hunks the user marked reviewed (this run only:
	// accepting changes nothing on disk and is not recorded).
	accepted map[hunkKey]bool
}

// appliedPatch is one successful apply_patch call.
type appliedPatch struct {
	thread protocol.ThreadID
	callID string
	input  string // the patch text, as applied
	at     time.Time
	files  []patch.FilePatch
}

// hunkKey names a hunk of a patch of a thread; an added, deleted or
// only moved file has the one hunk 0.
type hunkKey struct {
	thread protocol.ThreadID
	call   string
	file   int
	hunk   int
}

// notePatch records a finished apply_patch call that succeeded.
func (l *reviewLog) notePatch(t *threadView, tc *protocol.ToolCall, at time.Time) {
	if !isPatchTool(tc) || tc.IsError {
		return
	}
	input := tc.Patch()
	p, err := patch.Parse(input)
	if err != nil {
		return // applied, so it parsed then; a patch that does not is not ours to show
	}
	for _, old := range l.patches {
		if old.thread == t.info.ID && old.callID == tc.CallID && old.at.Equal(at) {
			return // replayed after the live event (a scripted model may reuse an id later)
		}
	}
	l.patches = append(l.patches, &appliedPatch{thread: t.info.ID, callID: tc.CallID, input: input, at: at, files: p.Files})
}

// noteTurn starts a new turn of the tree at the root's user message.
func (l *reviewLog) noteTurn(t *threadView, at time.Time) {
	if t.info.ParentID == "" && at.After(l.turnAt) {
		l.turnAt = at
	}
}

// noteRevert marks the hunks a patch_reverted event reports.
func (l *reviewLog) noteRevert(thread protocol.ThreadID, rev protocol.PatchRevert) {
	if l.reverted == nil {
		l.reverted = map[hunkKey]bool{}
	}
	for _, h := range rev.Hunks {
		l.reverted[hunkKey{thread, rev.CallID, h.File, h.Hunk}] = true
	}
}

// hunkCount is how many hunks a file section has on the screen.
func hunkCount(f patch.FilePatch) int {
	if f.Op == patch.OpUpdate && len(f.Hunks) > 0 {
		return len(f.Hunks)
	}
	return 1
}

// fileOp is the A/M/D letter of a file section.
func fileOp(f patch.FilePatch) string {
	switch f.Op {
	case patch.OpAdd:
		return "A"
	case patch.OpDelete:
		return "D"
	}
	return "M"
}

// filePath is the section's path, with its move.
func filePath(f patch.FilePatch) string {
	if f.MoveTo != "" {
		return f.Path + " → " + f.MoveTo
	}
	return f.Path
}

// hunkLines are the diff lines of hunk hi of f, each with its +/-/space.
func hunkLines(f patch.FilePatch, hi int) []string {
	switch f.Op {
	case patch.OpAdd:
		var out []string
		for _, l := range strings.SplitAfter(f.Contents, "\n") {
			if l != "" {
				out = append(out, "+"+strings.TrimSuffix(l, "\n"))
			}
		}
		return out
	case patch.OpDelete:
		return []string{"(the whole file was deleted)"}
	}
	if hi >= len(f.Hunks) {
		return []string{fmt.Sprintf("(moved to %s, content unchanged)", f.MoveTo)}
	}
	var out []string
	for _, l := range f.Hunks[hi].Lines {
		out = append(out, string(l.Kind)+l.Text)
	}
	return out
}

// hunkCounts are the +/- counts of hunk hi of f (a deleted file's are
// unknown: 0).
func hunkCounts(f patch.FilePatch, hi int) (add, del int) {
	switch {
	case f.Op == patch.OpAdd:
		return strings.Count(f.Contents, "\n"), 0
	case f.Op == patch.OpDelete || hi >= len(f.Hunks):
		return 0, 0
	}
	for _, l := range f.Hunks[hi].Lines {
		switch l.Kind {
		case '+':
			add++
		case '-':
			del++
		}
	}
	return add, del
}

// hunkLen is how many diff lines hunk hi of f shows (hunkLines without
// building them).
func hunkLen(f patch.FilePatch, hi int) int {
	switch {
	case f.Op == patch.OpAdd:
		return strings.Count(f.Contents, "\n")
	case f.Op == patch.OpDelete || hi >= len(f.Hunks):
		return 1
	}
	return len(f.Hunks[hi].Lines)
}
