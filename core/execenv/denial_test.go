package execenv

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/grovecli/grove/protocol"
)

// The backend says, with the exit, whether a command failed on a refusal
// of its sandbox: here, and from a host over the exec-server's wire. A
// command that prints the same words outside the sandbox was not denied.
func TestBackendsReportSandboxDenial(t *testing.T) {
	dial, stop := serveInProcess(t)
	defer stop()
	remote := NewRemote("inproc", dial)
	for name, b := range map[string]Backend{"local": NewLocal(), "remote": remote} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			t.Setenv("TMPDIR", dir)
			run := func(mode protocol.SandboxMode, script string) (int, bool) {
				var out lockedBuffer
				p, err := b.Start(context.Background(), ExecRequest{Argv: []string{"bash", "-c", script}, Cwd: dir, Env: os.Environ(),
					Policy: protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: mode}, Output: &out})
				if err != nil {
					t.Fatal(err)
				}
				code, err := p.Wait()
				if err != nil {
					t.Fatal(err)
				}
				return code, SandboxDenied(p)
			}
			if code, denied := run(protocol.SandboxReadOnly, "echo x > "+filepath.Join(dir, "f")); code == 0 || !denied {
				t.Fatalf("a write in a read-only sandbox: exit %d, denied %v", code, denied)
			}
			if code, denied := run(protocol.SandboxDangerFullAccess, "echo 'cp: x: Permission denied' >&2; exit 1"); code != 1 || denied {
				t.Fatalf("outside the sandbox: exit %d, denied %v", code, denied)
			}
			if code, denied := run(protocol.SandboxReadOnly, "exit 3"); code != 3 || denied {
				t.Fatalf("a plain failure: exit %d, denied %v", code, denied)
			}
		})
	}
}
