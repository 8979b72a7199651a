//go:build linux

package sandbox

// /dev under a restricted sandbox, against Codex's Linux sandbox:
//
//   - bubblewrap (its default): `--ro-bind / /` then `--dev /dev`, a fresh
//     /dev whose shm is an empty directory of its own tmpfs; the user's
//     /dev/shm is bound back only under full access (linux-sandbox
//     bwrap.rs tests `mounts_dev_before_writable_dev_binds`,
//     `full_disk_write_isolated_network_keeps_full_filesystem_but_unshares_network`).
//   - Landlock (use_legacy_landlock): writes only to /dev/null and the
//     writable roots (linux-sandbox landlock.rs
//     install_filesystem_landlock_rules_on_current_thread; tests
//     suite/landlock.rs `test_dev_null_write`, `test_root_write`).
//
// Either way a sandboxed command never writes the user's /dev/shm.

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/grovecli/grove/protocol"
)

// plantShm puts a file in the user's /dev/shm for the test's length.
func plantShm(t *testing.T) (path string) {
	t.Helper()
	if st, err := os.Stat("/dev/shm"); err != nil || !st.IsDir() {
		t.Skip("no /dev/shm on this host")
	}
	f, err := os.CreateTemp("/dev/shm", "grove-test-")
	if err != nil {
		t.Skipf("cannot write /dev/shm outside the sandbox: %v", err)
	}
	_, _ = f.WriteString("original")
	_ = f.Close()
	t.Cleanup(func() { _ = os.Remove(f.Name()) })
	return f.Name()
}

// TestDevShmNeverReachesTheHost: in both restricted modes a command can
// neither change nor remove a file of the user's /dev/shm, nor leave one
// there. With namespaces /dev/shm is the sandbox's own tmpfs (writable,
// empty, as under Codex's bubblewrap `--dev /dev`); without, it is the
// user's and stays read-only (as under Codex's Landlock sandbox).
func TestDevShmNeverReachesTheHost(t *testing.T) {
	requireLandlock(t, 1)
	planted := plantShm(t)
	name := filepath.Base(planted)
	for _, ns := range []bool{true, false} {
		t.Run("namespaces="+strconv.FormatBool(ns), func(t *testing.T) {
			if ns && !namespacesAvailable() {
				t.Skip("no user namespaces on this host")
			}
			if !ns {
				withoutNamespaces(t)
			}
			for _, p := range []protocol.SandboxPolicy{readOnly, workspaceWrite} {
				work, _ := dirs(t)
				fresh := "/dev/shm/" + name + "-new"
				t.Cleanup(func() { _ = os.Remove(fresh) })
				script := `cat /dev/shm/` + name + ` && echo visible
echo changed > /dev/shm/` + name + ` && echo wrote
rm -f /dev/shm/` + name + ` && echo removed
echo new > ` + fresh + ` && cat ` + fresh
				out, _ := sh(t, p, work, script)
				if b, err := os.ReadFile(planted); err != nil || string(b) != "original" {
					t.Fatalf("%s: the user's /dev/shm file is now %q (%v); output:\n%s", p.Mode, b, err, out)
				}
				if _, err := os.Stat(fresh); err == nil {
					t.Fatalf("%s: the command left %s in the user's /dev/shm; output:\n%s", p.Mode, fresh, out)
				}
				if ns {
					// The private tmpfs: the user's file is not there, a
					// new one can be written and read back.
					if strings.Contains(out, "original") || strings.Contains(out, "visible") {
						t.Fatalf("%s: the user's /dev/shm is visible in the sandbox:\n%s", p.Mode, out)
					}
					if !strings.Contains(out, "new") {
						t.Fatalf("%s: the sandbox's own /dev/shm is not writable:\n%s", p.Mode, out)
					}
				} else if !deniedByKernel(out) || strings.Contains(out, "wrote") || strings.Contains(out, "removed") {
					t.Fatalf("%s: /dev/shm writes not refused by the kernel:\n%s", p.Mode, out)
				}
			}
		})
	}
}

// TestDevShmFullAccessIsTheHosts: danger-full-access is not sandboxed, so
// /dev/shm is the user's, as Codex binds it back (`--bind-try /dev/shm`)
// in full_disk_write_isolated_network_keeps_full_filesystem_but_unshares_network.
func TestDevShmFullAccessIsTheHosts(t *testing.T) {
	planted := plantShm(t)
	work, _ := dirs(t)
	out, code := sh(t, fullAccess, work, "cat "+planted+" && echo full > "+planted)
	if code != 0 || !strings.Contains(out, "original") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if b, _ := os.ReadFile(planted); string(b) != "full\n" {
		t.Fatalf("the user's /dev/shm file is %q, want the full-access write", b)
	}
}

// TestDevNullWrite ports suite/landlock.rs test_dev_null_write (and
// sandbox.rs's): writing /dev/null works in both restricted modes, with
// and without namespaces; other device nodes stay closed (test_root_write:
// a write outside the roots fails).
func TestDevNullWrite(t *testing.T) {
	requireLandlock(t, 1)
	bothWays(t, func(t *testing.T) {
		for _, p := range []protocol.SandboxPolicy{readOnly, workspaceWrite} {
			work, outside := dirs(t)
			if out, code := sh(t, p, work, "echo blah > /dev/null"); code != 0 {
				t.Fatalf("%s: echo > /dev/null: exit %d:\n%s", p.Mode, code, out)
			}
			target := filepath.Join(outside, "root-write")
			out, code := sh(t, p, work, "echo blah > "+target)
			if code == 0 || !deniedByKernel(out) {
				t.Fatalf("%s: write outside the roots: exit %d:\n%s", p.Mode, code, out)
			}
			if _, err := os.Stat(target); err == nil {
				t.Fatalf("%s: %s was created", p.Mode, target)
			}
		}
	})
}

// TestPythonMultiprocessingInSandbox: named semaphores (sem_open, in
// /dev/shm) work in both modes with namespaces, as under Codex's
// bubblewrap sandbox (core suite sandbox.rs
// python_multiprocessing_lock_works_under_sandbox runs workspace-write).
// Without namespaces /dev/shm is the user's and read-only: the Lock
// fails, as under Codex's Landlock sandbox.
func TestPythonMultiprocessingInSandbox(t *testing.T) {
	requireLandlock(t, 1)
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found")
	}
	script := `from multiprocessing import Lock, Process
def f(lock):
    with lock:
        print("Lock acquired in child process")
if __name__ == "__main__":
    lock = Lock()
    p = Process(target=f, args=(lock,))
    p.start()
    p.join()
`
	for _, ns := range []bool{true, false} {
		t.Run("namespaces="+strconv.FormatBool(ns), func(t *testing.T) {
			if ns && !namespacesAvailable() {
				t.Skip("no user namespaces on this host")
			}
			if !ns {
				withoutNamespaces(t)
			}
			for _, p := range []protocol.SandboxPolicy{readOnly, workspaceWrite} {
				work, _ := dirs(t)
				out, code := runStart(t, p, work, []string{py, "-c", script}, os.Environ())
				ok := code == 0 && strings.Contains(out, "Lock acquired in child process")
				if ok != ns {
					t.Fatalf("%s: python multiprocessing Lock: exit %d (want success %v):\n%s", p.Mode, code, ns, out)
				}
			}
		})
	}
}
