package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/sandbox"
	"github.com/grovecli/grove/core/tools/patch"
	"github.com/grovecli/grove/core/tools/schema"
	"github.com/grovecli/grove/protocol"
)

type applyPatch struct{}

// NewApplyPatch returns the apply_patch tool.
func NewApplyPatch() Tool { return applyPatch{} }

const applyPatchDesc = `Use apply_patch to add, edit, rename and delete files. The patch is applied atomically: either every change lands or no file changes.

The patch format is a stripped-down, file-oriented diff:

*** Begin Patch
[ one or more file sections ]
*** End Patch

Each file section starts with one of three headers:
*** Add File: <path> - create a new file; every following line is a + line (the initial contents).
*** Delete File: <path> - remove an existing file; nothing follows.
*** Update File: <path> - patch an existing file, optionally renaming it with a following line "*** Move to: <new path>".

An update holds one or more hunks, each introduced by @@, optionally followed by a line of the file that locates the hunk (a class or function signature). In a hunk every line starts with:
  ' ' (space) for context, '-' for a removed line, '+' for an added line.
Show 3 lines of context above and below each change; if that is not unique, add an @@ line naming the enclosing class or function. Hunks of one file must be in file order. End a hunk with "*** End of File" when it changes the end of the file.

Grammar:
Patch := Begin { FileOp } End
Begin := "*** Begin Patch" NEWLINE
End := "*** End Patch" NEWLINE
FileOp := AddFile | DeleteFile | UpdateFile
AddFile := "*** Add File: " path NEWLINE { "+" line NEWLINE }
DeleteFile := "*** Delete File: " path NEWLINE
UpdateFile := "*** Update File: " path NEWLINE [ MoveTo ] { Hunk }
MoveTo := "*** Move to: " newPath NEWLINE
Hunk := "@@" [ header ] NEWLINE { HunkLine } [ "*** End of File" NEWLINE ]
HunkLine := (" " | "-" | "+") text NEWLINE

Example:
*** Begin Patch
*** Add File: hello.txt
+Hello world
*** Update File: src/app.py
*** Move to: src/main.py
@@ def greet():
-print("Hi")
+print("Hello, world!")
*** Delete File: obsolete.txt
*** End Patch

Paths are relative to the working directory (absolute paths work too); never use line numbers. New lines of an added file must start with +.`

// applyPatchArgs are apply_patch's arguments; its schema is generated from them.
type applyPatchArgs struct {
	Input string `json:"input" required:"true" jsonschema:"The entire patch, from *** Begin Patch to *** End Patch."`
}

func (applyPatch) Spec() model.ToolSpec {
	return model.ToolSpec{Name: "apply_patch", Description: applyPatchDesc, Parameters: schema.MustObject(applyPatchArgs{})}
}

func (applyPatch) Run(ctx context.Context, env *Env, raw json.RawMessage) Result {
	var a applyPatchArgs
	if err := decode("apply_patch", raw, &a); err != nil {
		return Errorf("%v", err)
	}
	p, err := patch.Parse(a.Input)
	if err != nil {
		return Errorf("apply_patch: %v; no files were changed", err)
	}
	changes, err := patch.Compute(p, env.Cwd)
	if err != nil {
		return Errorf("apply_patch: %v; no files were changed", err)
	}
	// Resolve every path once and pin it beneath an open root: the check
	// below and the write after it then see the same file, whatever
	// happens to symlinks in between.
	pins := patch.NewPins(writeRoots(env))
	defer pins.Close()
	pinnedOutside, err := pins.Pin(changes)
	if err != nil {
		return Errorf("apply_patch: %v; no files were changed", err)
	}
	var files, outside []string
	for _, c := range changes {
		for _, path := range []string{c.Path, c.MoveTo} {
			if path == "" {
				continue
			}
			files = append(files, displayPath(env.Cwd, path))
			if err := sandbox.CheckWritable(env.Sandbox, env.Cwd, path); err != nil {
				outside = append(outside, err.Error())
			}
		}
	}
	if len(outside) == 0 && len(pinnedOutside) > 0 {
		// The tree changed between pinning and checking.
		outside = append(outside, fmt.Sprintf("%s is outside the writable roots of this sandbox", strings.Join(pinnedOutside, ", ")))
	}
	untrusted := env.ApprovalPolicy == protocol.ApprovalUntrusted
	if len(outside) > 0 || untrusted {
		why := "approval_policy is untrusted"
		if len(outside) > 0 {
			why = strings.Join(outside, "; ")
		}
		switch {
		case env.ApprovalPolicy == protocol.ApprovalNever:
			return Errorf("apply_patch: refused: %s (approval_policy is never, so no one is asked); no files were changed", why)
		case env.Approve == nil:
			return Errorf("apply_patch: refused: %s, and no one can approve in this session; no files were changed", why)
		}
		d, err := env.Approve(ctx, protocol.ApprovalRequest{Kind: protocol.ApprovalPatch, CallID: env.CallID, Patch: a.Input, Files: files, Cwd: env.Cwd, Reason: why})
		switch {
		case err != nil && ctx.Err() != nil:
			return Result{Output: "apply_patch: interrupted while waiting for approval; no files were changed", IsError: true, Abort: true}
		case err != nil:
			return Errorf("apply_patch: approval failed: %v; no files were changed", err)
		case d == protocol.DecisionAbort:
			return Result{Output: "patch rejected by user (the turn was aborted)", IsError: true, Abort: true}
		case !d.Approved():
			return Errorf("patch rejected by user")
		}
		// The files may have changed while the user decided.
		if changes, err = patch.Compute(p, env.Cwd); err != nil {
			return Errorf("apply_patch: %v (the files changed while waiting for approval); no files were changed", err)
		}
	}
	if err := ctx.Err(); err != nil {
		return Result{Output: "apply_patch: interrupted; no files were changed", IsError: true, Abort: true}
	}
	if err := patch.Write(changes, pins); err != nil {
		return Errorf("apply_patch: %v", err)
	}
	return Result{Output: patchReport(env.Cwd, changes), Summary: patchSummary(changes)}
}

// writeRoots are the directories patches may write beneath without
// approval: the sandbox's writable roots, or everything when it is off.
func writeRoots(env *Env) []string {
	if env.Sandbox.Mode == protocol.SandboxDangerFullAccess {
		return []string{string(filepath.Separator)}
	}
	return sandbox.WritableRoots(env.Sandbox, env.Cwd)
}

// patchReport lists the changed files like Codex does.
func patchReport(cwd string, changes []patch.Change) string {
	var b strings.Builder
	b.WriteString("Success. Updated the following files:")
	for _, c := range changes {
		switch {
		case c.Op == patch.OpAdd:
			fmt.Fprintf(&b, "\nA %s", displayPath(cwd, c.Path))
		case c.Op == patch.OpDelete:
			fmt.Fprintf(&b, "\nD %s", displayPath(cwd, c.Path))
		case c.MoveTo != "":
			fmt.Fprintf(&b, "\nM %s -> %s", displayPath(cwd, c.Path), displayPath(cwd, c.MoveTo))
		default:
			fmt.Fprintf(&b, "\nM %s", displayPath(cwd, c.Path))
		}
	}
	return b.String()
}

// patchSummary is the one-line UI summary, e.g. "patched 3 files (+12 -4)".
func patchSummary(changes []patch.Change) string {
	seen := map[string]bool{}
	added, removed := 0, 0
	for _, c := range changes {
		seen[c.Path] = true
		added += c.Added
		removed += c.Removed
	}
	noun := "files"
	if len(seen) == 1 {
		noun = "file"
	}
	return fmt.Sprintf("patched %d %s (+%d -%d)", len(seen), noun, added, removed)
}

// displayPath shows p relative to cwd when it is inside it.
func displayPath(cwd, p string) string {
	if cwd != "" {
		if r, err := filepath.Rel(cwd, p); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return r
		}
	}
	return p
}
