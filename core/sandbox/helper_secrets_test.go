//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/grovecli/grove/core/shellenv"
	"github.com/grovecli/grove/protocol"
)

// dropCapabilities empties this thread's effective capability set: what
// an unprivileged user runs with (tests may run as root, whose
// capabilities would read any process's /proc files).
func dropCapabilities() error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return err
	}
	data[0].Effective, data[1].Effective = 0, 0
	return unix.Capset(&hdr, &data[0])
}

// issue 21: where user namespaces are unavailable the helper is the
// command's parent, and it ran with grove's full environment, so
// `cat /proc/$PPID/environ` printed the provider key. The helper now
// starts from the scrubbed environment.
func TestEscapeHelperEnvironHoldsNoSecret(t *testing.T) {
	requireLandlock(t, 1)
	secret := fmt.Sprintf("sk-helper-%d", time.Now().UnixNano())
	bothWays(t, func(t *testing.T) {
		t.Setenv("OPENAI_API_KEY", secret)
		t.Setenv("PGPASSWORD", secret+"-pg")
		work, _ := dirs(t) // a new workspace: a new pool helper, started now
		env := shellenv.Build(os.Environ(), shellenv.Current())
		if strings.Contains(strings.Join(env, "\n"), secret) {
			t.Fatal("the command's own environment holds the secret")
		}
		for _, p := range []string{"read-only", "workspace-write"} {
			policy := readOnly
			if p == "workspace-write" {
				policy = workspaceWrite
			}
			out, _ := runStart(t, policy, work, []string{"bash", "-c", `tr '\0' '\n' < /proc/$PPID/environ; echo END`}, env)
			if strings.Contains(out, secret) || !strings.Contains(out, "END") {
				t.Errorf("%s: the parent's environment leaked the key:\n%s", p, out)
			}
		}
	})
}

// The other angle: whatever the helper's environment holds, a command
// without capabilities (any unprivileged user's) cannot read its /proc files at all (the helper
// is non-dumpable).
func TestEscapeHelperIsNotDumpable(t *testing.T) {
	requireLandlock(t, 1)
	bothWays(t, func(t *testing.T) {
		work, _ := dirs(t)
		for _, policy := range []protocol.SandboxPolicy{readOnly, workspaceWrite} {
			if out := probe(t, policy, work, "parent-environ"); !strings.HasPrefix(out, "blocked:") {
				t.Errorf("%s: the helper's environ was readable: %.300s", policy.Mode, out)
			}
		}
	})
}

// Without a PID namespace `kill -9 -1` reached every process the command
// may signal; with Landlock's signal scope that is its own helper, whose
// death ended the sandbox's other commands. Now it is refused, and the
// sandbox keeps serving.
func TestEscapeKillAllWithoutNamespaces(t *testing.T) {
	requireLandlock(t, 1)
	withoutNamespaces(t)
	work, _ := dirs(t)
	env := os.Environ()
	for _, policy := range []protocol.SandboxPolicy{readOnly, workspaceWrite} {
		out, code := runStart(t, policy, work, []string{"bash", "-c", "kill -9 -1; echo kill=$?"}, env)
		if !strings.Contains(out, "kill=1") {
			t.Errorf("%s: kill -9 -1: exit %d: %s", policy.Mode, code, out)
		}
		// A raw kill(2) with the pid's upper bits set is the same call.
		if out := probe(t, policy, work, "kill-all-high-bits"); !strings.HasPrefix(out, "blocked:") {
			t.Errorf("%s: kill(0xffffffff): %s", policy.Mode, out)
		}
		if out, code := runStart(t, policy, work, []string{"echo", "still-serving"}, env); code != 0 || !strings.Contains(out, "still-serving") {
			t.Errorf("%s: the sandbox did not survive: exit %d: %s", policy.Mode, code, out)
		}
	}
}

// HardenProcess makes the caller non-dumpable (grove's main and every
// helper call it). The probe above cannot tell this apart when the tests
// run as root (the capability check denies the read as well), so the flag
// itself is checked here.
func TestHardenProcess(t *testing.T) {
	before, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = unix.Prctl(unix.PR_SET_DUMPABLE, uintptr(before), 0, 0, 0) })
	if err := HardenProcess(); err != nil {
		t.Fatal(err)
	}
	if v, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0); err != nil || v != 0 {
		t.Fatalf("dumpable = %d, %v", v, err)
	}
}

// A command started by root (containers, CI) held every capability of the
// host without user namespaces: CAP_SYS_PTRACE read grove's environment
// through /proc/<grove>/environ (found by the red-team suite's
// grove-pid-environ-no-userns), CAP_MKNOD and CAP_SYS_MODULE reach past
// Landlock. Restricted commands now get none, with or without namespaces.
func TestEscapeCommandsHoldNoCapabilities(t *testing.T) {
	requireLandlock(t, 1)
	bothWays(t, func(t *testing.T) {
		work, _ := dirs(t)
		for _, policy := range []protocol.SandboxPolicy{readOnly, workspaceWrite} {
			out, _ := runStart(t, policy, work, []string{"bash", "-c", "grep -E '^Cap(Prm|Eff|Bnd|Amb)' /proc/self/status; echo END"}, os.Environ())
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				if name, val, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(val) != "0000000000000000" {
					t.Errorf("%s: %s = %s", policy.Mode, name, strings.TrimSpace(val))
				}
			}
			if !strings.Contains(out, "END") {
				t.Errorf("%s: %s", policy.Mode, out)
			}
		}
		// And so grove's own environment stays closed, root or not.
		out, _ := runStart(t, workspaceWrite, work, []string{"bash", "-c", fmt.Sprintf("tr '\\0' '\\n' < /proc/%d/environ | grep -c PATH=; echo END", os.Getpid())}, os.Environ())
		if !strings.HasPrefix(strings.TrimSpace(out), "0") && !strings.Contains(out, "No such file") && !strings.Contains(out, "Permission denied") {
			t.Errorf("grove's environ was readable: %s", out)
		}
	})
}
