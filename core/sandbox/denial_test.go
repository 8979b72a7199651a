package sandbox

import (
	"strings"
	"testing"

	"github.com/grovecli/grove/protocol"
)

// The watch passes the output on whole and sees a refusal's message even
// split across two writes; a command that succeeded, or ran outside the
// sandbox, was not denied.
func TestDenialWatch(t *testing.T) {
	var out strings.Builder
	w := WatchDenials(protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxWorkspaceWrite}, &out)
	for _, p := range []string{"bash: /etc/x: Read-only fi", "le system\n"} {
		if _, err := w.Write([]byte(p)); err != nil {
			t.Fatal(err)
		}
	}
	if out.String() != "bash: /etc/x: Read-only file system\n" || !w.Denied(1) || w.Denied(0) {
		t.Fatalf("output %q, denied(1) %v, denied(0) %v", out.String(), w.Denied(1), w.Denied(0))
	}
	free := WatchDenials(protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxDangerFullAccess}, nil)
	_, _ = free.Write([]byte("touch: cannot touch '/x': Permission denied\n"))
	if free.Denied(1) {
		t.Fatal("a command run outside the sandbox was denied by it")
	}
	quiet := WatchDenials(protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxReadOnly}, nil)
	_, _ = quiet.Write([]byte("no such file\n"))
	if quiet.Denied(1) {
		t.Fatal("a plain failure counted as a denial")
	}
}
