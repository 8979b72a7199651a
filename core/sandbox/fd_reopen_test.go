//go:build linux

package sandbox

// Writes that reach a file through something other than its name: a
// descriptor opened before the sandbox and reopened through /proc/self/fd
// (or /dev/stdin), and the per-user runtime and IPC directories
// (/run/user/<uid>, /dev/mqueue) that are writable outside the sandbox.

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/grovecli/grove/protocol"
)

// TestReopenInheritedFDForWriteIsDenied: grove hands the command a file
// outside the roots as stdin, read-only. Reopening it for writing through
// /proc/self/fd/0 or /dev/stdin walks to the file itself, so Landlock
// checks the file, not the descriptor: refused in both modes, with and
// without namespaces. (Codex hands commands no such descriptor; the
// kernel rule is the same under its Landlock sandbox, and under bubblewrap
// the file outside the binds is read-only.)
func TestReopenInheritedFDForWriteIsDenied(t *testing.T) {
	requireLandlock(t, 1)
	bothWays(t, func(t *testing.T) {
		for _, p := range []protocol.SandboxPolicy{readOnly, workspaceWrite} {
			work, outside := dirs(t)
			target := filepath.Join(outside, "held")
			if err := os.WriteFile(target, []byte("original"), 0o644); err != nil {
				t.Fatal(err)
			}
			script := `cat /proc/self/fd/0 && echo read
echo pwned > /proc/self/fd/0 && echo wrote-fd
echo pwned >> /dev/stdin && echo wrote-stdin
true`
			out := runWithStdin(t, p, work, target, script)
			if b, _ := os.ReadFile(target); string(b) != "original" {
				t.Fatalf("%s: the file is now %q:\n%s", p.Mode, b, out)
			}
			if !strings.Contains(out, "originalread") {
				t.Fatalf("%s: the inherited descriptor was not readable:\n%s", p.Mode, out)
			}
			if strings.Contains(out, "wrote") || !deniedByKernel(out) {
				t.Fatalf("%s: reopening for write not refused by the kernel:\n%s", p.Mode, out)
			}
		}
	})
}

// runWithStdin runs script under policy with the file at stdinPath,
// opened read-only before the sandbox, as its standard input.
func runWithStdin(t *testing.T, policy protocol.SandboxPolicy, cwd, stdinPath, script string) string {
	t.Helper()
	in, err := os.Open(stdinPath)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	p, err := Start(StartRequest{Policy: policy, Cwd: cwd, Dir: cwd, Argv: []string{"bash", "-c", script}, Env: os.Environ(), Stdin: in, Out: pw})
	_ = pw.Close()
	if err != nil {
		_ = pr.Close()
		t.Fatalf("Start: %v", err)
	}
	out, _ := io.ReadAll(pr)
	_ = pr.Close()
	if _, err := p.Wait(); err != nil {
		t.Fatalf("Wait: %v", err)
	}
	return string(out)
}

// TestRuntimeAndMqueueDirsAreNotWritable: /run/user/<uid> (the user's
// runtime directory: D-Bus, Wayland, ssh-agent sockets) and /dev/mqueue
// (POSIX message queues as files) are writable by the user outside the
// sandbox and are no writable root inside it: Landlock grants nothing
// there (and in /dev only the listed nodes), in both modes. Each skips
// where the host has no such directory or the user cannot write it.
func TestRuntimeAndMqueueDirsAreNotWritable(t *testing.T) {
	requireLandlock(t, 1)
	for _, dir := range []string{filepath.Join("/run/user", strconv.Itoa(os.Getuid())), "/dev/mqueue"} {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			probe, err := os.CreateTemp(dir, "grove-test-")
			if err != nil {
				t.Skipf("%s is not writable outside the sandbox here: %v", dir, err)
			}
			_ = probe.Close()
			_ = os.Remove(probe.Name())
			for _, p := range []protocol.SandboxPolicy{readOnly, workspaceWrite} {
				work, _ := dirs(t)
				target := filepath.Join(dir, "grove-sandbox-"+strconv.Itoa(os.Getpid()))
				t.Cleanup(func() { _ = os.Remove(target) })
				out, code := sh(t, p, work, "echo x > "+target)
				if code == 0 || !deniedByKernel(out) {
					t.Fatalf("%s: write to %s: exit %d:\n%s", p.Mode, target, code, out)
				}
				if _, err := os.Stat(target); err == nil {
					t.Fatalf("%s: %s was created", p.Mode, target)
				}
			}
		})
	}
}
