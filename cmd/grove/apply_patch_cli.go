package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/grovecli/grove/core/execenv"
	"github.com/grovecli/grove/core/visible"
	"github.com/grovecli/grove/protocol"
)

// codexApplyPatchArg is Codex's CODEX_APPLY_PATCH_ARG1: a Codex binary
// started as `codex --codex-run-as-apply-patch PATCH` is the apply_patch
// CLI (codex-rs/arg0; exec/tests/suite/apply_patch.rs
// test_standalone_exec_cli_can_use_apply_patch). Scripts and harnesses
// that call it that way get the same from grove.
const codexApplyPatchArg = "--codex-run-as-apply-patch"

// maybeRunApplyPatch runs the apply_patch CLI and exits when the command
// line asks for it; otherwise it returns.
func maybeRunApplyPatch() {
	if len(os.Args) < 2 || os.Args[1] != codexApplyPatchArg {
		return
	}
	os.Exit(runApplyPatchCLI(os.Args[2:], os.Stdout, os.Stderr))
}

// runApplyPatchCLI applies the one patch argument in the current
// directory, as Codex's apply_patch binary does (no sandbox: the caller
// already chose to run it), and prints Codex's report.
func runApplyPatchCLI(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "Error: apply_patch expects exactly one argument: the patch")
		return 2
	}
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(stderr, "Error: apply_patch: working directory:", err)
		return 1
	}
	res, err := execenv.Local{}.ApplyPatch(context.Background(), execenv.PatchRequest{
		Cwd: cwd, Input: args[0], Apply: true, Policy: protocol.SandboxPolicy{Mode: protocol.SandboxDangerFullAccess},
	})
	if err == nil && !res.Applied {
		err = fmt.Errorf("patch not applied")
	}
	if err != nil {
		fmt.Fprintln(stderr, visible.Text(err.Error()))
		return 1
	}
	fmt.Fprintln(stdout, visible.Text(res.Report))
	return 0
}
