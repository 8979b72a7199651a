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
	"github.com/grovecli/grove/protocol"
)

type applyPatch struct{}

// NewApplyPatch returns the apply_patch tool.
func NewApplyPatch() Tool { return applyPatch{} }

const applyPatchDesc = `Edit files with a patch. Atomic: either every change applies or no file changes. Format:
*** Begin Patch
*** Add File: <path>
+<line of the new file>
*** Update File: <path>
*** Move to: <new path>          (optional, renames the file)
@@ <optional context line, e.g. a function signature, to locate the hunk>
 <context line (leading space)>
-<removed line>
+<added line>
*** End of File                  (optional: the hunk is at the end of the file)
*** Delete File: <path>
*** End Patch
Give about 3 lines of context before and after each change; use several @@ hunks for several places in one file. Paths are relative to the working directory.`

func (applyPatch) Spec() model.ToolSpec {
	return model.ToolSpec{Name: "apply_patch", Description: applyPatchDesc, Parameters: json.RawMessage(`{"type":"object","properties":{
"input":{"type":"string","description":"The whole patch, from *** Begin Patch to *** End Patch."}
},"required":["input"],"additionalProperties":false}`)}
}

func (applyPatch) Run(ctx context.Context, env *Env, raw json.RawMessage) Result {
	var a struct {
		Input string `json:"input"`
	}
	if err := decode("apply_patch", raw, &a); err != nil {
		return Errorf("%v", err)
	}
	p, err := patch.Parse(a.Input)
	if err != nil {
		return Errorf("apply_patch: %v", err)
	}
	changes, err := patch.Compute(p, env.Cwd)
	if err != nil {
		return Errorf("apply_patch: %v; no files were changed", err)
	}
	var files, outside []string
	for _, c := range changes {
		for _, path := range []string{c.Path, c.MoveTo} {
			if path == "" {
				continue
			}
			files = append(files, path)
			if err := sandbox.CheckWritable(env.Sandbox, env.Cwd, path); err != nil {
				outside = append(outside, err.Error())
			}
		}
	}
	needAsk := len(outside) > 0
	if env.ApprovalPolicy == protocol.ApprovalUntrusted {
		needAsk = true
	}
	if needAsk {
		if env.ApprovalPolicy == protocol.ApprovalNever || env.Approve == nil {
			why := "approval_policy = never"
			if env.Approve == nil {
				why = "no one can approve in this session"
			}
			return Errorf("apply_patch: refused (%s): %s; no files were changed", why, strings.Join(outside, "; "))
		}
		reason := "approval_policy is untrusted"
		if len(outside) > 0 {
			reason = strings.Join(outside, "; ")
		}
		d, err := env.Approve(ctx, protocol.ApprovalRequest{Kind: protocol.ApprovalPatch, Patch: a.Input, Files: files, Cwd: env.Cwd, Reason: reason})
		if err != nil {
			return Result{Output: fmt.Sprintf("apply_patch: approval was not given: %v", err), IsError: true, Abort: ctx.Err() != nil}
		}
		switch d {
		case protocol.DecisionAbort:
			return Result{Output: "patch rejected by user (aborted the turn)", IsError: true, Abort: true}
		case protocol.DecisionDenied:
			return Errorf("patch rejected by user")
		}
	}
	if err := patch.Write(changes); err != nil {
		return Errorf("apply_patch: %v", err)
	}
	var b strings.Builder
	b.WriteString("Success. Updated the following files:\n")
	added, removed := 0, 0
	for _, c := range changes {
		rel := func(p string) string {
			if r, err := filepath.Rel(env.Cwd, p); err == nil && !strings.HasPrefix(r, "..") {
				return r
			}
			return p
		}
		switch c.Op {
		case patch.OpAdd:
			fmt.Fprintf(&b, "A %s\n", rel(c.Path))
		case patch.OpDelete:
			fmt.Fprintf(&b, "D %s\n", rel(c.Path))
		default:
			if c.MoveTo != "" {
				fmt.Fprintf(&b, "M %s -> %s\n", rel(c.Path), rel(c.MoveTo))
			} else {
				fmt.Fprintf(&b, "M %s\n", rel(c.Path))
			}
		}
		added += c.Added
		removed += c.Removed
	}
	return Result{Output: b.String(), Summary: fmt.Sprintf("patched %d file(s) (+%d -%d)", len(changes), added, removed)}
}
