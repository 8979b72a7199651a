package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/grovecli/grove/core/execenv"
	"github.com/grovecli/grove/core/tools/patch"
	"github.com/grovecli/grove/protocol"
)

// fileChange is what Write, Edit or MultiEdit would do to one file: its
// whole new content, computed from what the file holds now (old; nil for
// a new file). The write goes through the backend's patch machinery:
// pinned beneath the sandbox's writable roots, approved when outside them,
// atomic, and refused if the file changed after it was read.
type fileChange struct {
	tool    string
	abs     string
	old     *string
	content string
	// answer is the model's text once the change is written.
	answer func() string
}

// currentFile reads abs as it is now: exists false (and no error) when
// there is no file.
func currentFile(ctx context.Context, env *Env, abs string) (text string, st execenv.FileInfo, exists bool, err error) {
	fsys := env.Backend()
	st, err = fsys.Stat(ctx, abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", st, false, nil
	case err != nil:
		return "", st, false, err
	case st.IsDir():
		return "", st, true, fmt.Errorf("%s is a directory", abs)
	case !st.Mode.IsRegular():
		return "", st, true, fmt.Errorf("%s is not a regular file", abs)
	case st.Size > claudeReadHardMax:
		return "", st, true, fmt.Errorf("%s is %d MB, too large to edit with this tool", abs, st.Size>>20)
	}
	data, err := readAllFrom(ctx, fsys, abs, st.Size)
	return string(data), st, true, err
}

func (c fileChange) write() execenv.FileWrite {
	return execenv.FileWrite{Path: c.abs, Content: c.content, Old: c.old}
}

// gate checks the change against the sandbox without writing, for the
// orchestrator's approval rules; the approval shows it as a patch.
func (c fileChange) gate(ctx context.Context, env *Env) (Gate, *Result) {
	chk, err := env.Backend().ApplyPatch(ctx, execenv.PatchRequest{Cwd: env.Cwd, Policy: env.Sandbox, Writes: []execenv.FileWrite{c.write()}})
	if err != nil {
		r := Errorf("%s: %v; no files were changed", c.tool, err)
		return Gate{}, &r
	}
	return Gate{
		Kind:    GatePatch,
		Name:    c.tool,
		Request: protocol.ApprovalRequest{Kind: protocol.ApprovalPatch, Patch: displayPatch(c), Files: chk.Files, Cwd: env.Cwd},
		Outside: chk.Outside,
		// The resolved paths the user approves: the write checks them again (a directory
		// swapped for a symlink while the question was open is refused, not followed).
		NeedApproval: chk.NeedApproval,
	}, nil
}

// apply writes the change (outside the roots only when approved) and
// records the file as read as it is now.
func (c fileChange) apply(ctx context.Context, env *Env, reads *readState) Result {
	res, err := env.Backend().ApplyPatch(ctx, execenv.PatchRequest{Cwd: env.Cwd, Policy: env.Sandbox, Writes: []execenv.FileWrite{c.write()}, Apply: true, Outside: env.Approved, ApprovedPaths: env.ApprovedPaths})
	switch {
	case err != nil && ctx.Err() != nil:
		return Result{Output: c.tool + ": interrupted; the file was not changed", IsError: true, Abort: true}
	case errors.Is(err, patch.ErrChanged):
		return Errorf("%s", claudeModified)
	case err != nil:
		return Errorf("%s: %v; the file was not changed", c.tool, err)
	case !res.Applied:
		return Errorf("%s: refused: %s (not approved); the file was not changed", c.tool, strings.Join(res.Outside, "; "))
	}
	if st, err := env.Backend().Stat(ctx, c.abs); err == nil {
		reads.saw(env.ThreadID, c.abs, readStamp{modTime: st.ModTime, size: st.Size})
	}
	return Result{Output: c.answer(), Summary: res.Summary}
}

// displayPatch shows the change in apply_patch's format, for the approval
// prompt and the diff views (whole-file replacement as one hunk).
func displayPatch(c fileChange) string {
	var b strings.Builder
	b.WriteString("*** Begin Patch\n")
	if c.old == nil {
		fmt.Fprintf(&b, "*** Add File: %s\n", c.abs)
		for _, l := range patchLines(c.content) {
			b.WriteString("+" + l + "\n")
		}
	} else {
		fmt.Fprintf(&b, "*** Update File: %s\n", c.abs)
		b.WriteString(hunkBetween(*c.old, c.content))
	}
	b.WriteString("*** End Patch\n")
	return b.String()
}

// hunkBetween is one hunk turning old into new: the common head and tail
// lines dropped except three lines of context around the change.
func hunkBetween(old, new string) string {
	a, z := patchLines(old), patchLines(new)
	head := 0
	for head < len(a) && head < len(z) && a[head] == z[head] {
		head++
	}
	tail := 0
	for tail < len(a)-head && tail < len(z)-head && a[len(a)-1-tail] == z[len(z)-1-tail] {
		tail++
	}
	from := max(0, head-3)
	var b strings.Builder
	b.WriteString("@@\n")
	for _, l := range a[from:head] {
		b.WriteString(" " + l + "\n")
	}
	for _, l := range a[head : len(a)-tail] {
		b.WriteString("-" + l + "\n")
	}
	for _, l := range z[head : len(z)-tail] {
		b.WriteString("+" + l + "\n")
	}
	for _, l := range a[len(a)-tail : min(len(a), len(a)-tail+3)] {
		b.WriteString(" " + l + "\n")
	}
	return b.String()
}

// patchLines splits text into lines as a patch shows them.
func patchLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}
