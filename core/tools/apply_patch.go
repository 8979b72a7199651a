package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/grovecli/grove/core/execenv"
	"github.com/grovecli/grove/core/model"
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

// Gate checks the patch against the files and the sandbox without
// writing: the orchestrator asks when a path is outside the writable roots
// (or the policy is untrusted).
func (applyPatch) Gate(ctx context.Context, env *Env, raw json.RawMessage) (Gate, *Result) {
	var a applyPatchArgs
	if err := decode("apply_patch", raw, &a); err != nil {
		r := Errorf("%v", err)
		return Gate{}, &r
	}
	chk, err := env.Backend().ApplyPatch(ctx, execenv.PatchRequest{Cwd: env.Cwd, Input: a.Input, Policy: env.Sandbox})
	if err != nil {
		r := Errorf("apply_patch: %v; no files were changed", err)
		return Gate{}, &r
	}
	return Gate{
		Kind:         GatePatch,
		Request:      protocol.ApprovalRequest{Kind: protocol.ApprovalPatch, Patch: a.Input, Files: chk.Files, Cwd: env.Cwd},
		Outside:      chk.Outside,
		NeedApproval: chk.NeedApproval,
	}, nil
}

// Run applies the patch on the thread's backend, which checks and writes
// in one step: a path outside the writable roots is written only when the
// orchestrator got the user's approval for this call (env.Approved).
func (applyPatch) Run(ctx context.Context, env *Env, raw json.RawMessage) Result {
	start := time.Now()
	var a applyPatchArgs
	if err := decode("apply_patch", raw, &a); err != nil {
		return Errorf("%v", err)
	}
	res, err := env.Backend().ApplyPatch(ctx, execenv.PatchRequest{Cwd: env.Cwd, Input: a.Input, Policy: env.Sandbox, Apply: true, Outside: env.Approved, ApprovedPaths: env.ApprovedPaths})
	switch {
	case err != nil && ctx.Err() != nil:
		return Result{Output: "apply_patch: interrupted; no files were changed", IsError: true, Abort: true}
	case err != nil && res.Files != nil:
		// Computed and pinned, then the write failed (and was rolled back).
		return Errorf("apply_patch: %v", err)
	case err != nil && env.Approved:
		return Errorf("apply_patch: %v (the files changed while waiting for approval); no files were changed", err)
	case err != nil:
		return Errorf("apply_patch: %v; no files were changed", err)
	case !res.Applied:
		return Errorf("apply_patch: refused: %s (not approved); no files were changed", strings.Join(res.Outside, "; "))
	}
	out := res.Report
	if env.Family == FamilyCodex {
		out = codexExecStyle(0, time.Since(start), res.Report+"\n")
	}
	return Result{Output: out, Summary: res.Summary}
}

// codexExecStyle is Codex's freeform exec output
// (format_exec_output_for_model_freeform), which Codex answers apply_patch
// with for its GPT-5.x models (core/tests/suite/apply_patch_cli.rs:
// "Exit code: 0\nWall time: … seconds\nOutput:\nSuccess. …").
func codexExecStyle(code int, took time.Duration, output string) string {
	secs := math.Round(took.Seconds()*10) / 10
	return fmt.Sprintf("Exit code: %d\nWall time: %s seconds\nOutput:\n%s", code, strconv.FormatFloat(secs, 'f', -1, 32), output)
}
