//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestEscapeSiblingEnviron (issue 21, fourth pass): grove starts
// processes that keep its whole environment, provider key included — the
// ssh client of a remote host (ssh needs SSH_AUTH_SOCK, which the
// scrubbed environment drops) — and are not non-dumpable. A sandboxed
// command must not read their /proc files, with or without namespaces.
func TestEscapeSiblingEnviron(t *testing.T) {
	requireLandlock(t, 1)
	const secret = "sk-sibling-secret-4242"
	sib := exec.Command("sleep", "600")
	sib.Env = append(os.Environ(), "OPENAI_API_KEY="+secret)
	if err := sib.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sib.Process.Kill(); _ = sib.Wait() })
	pid := strconv.Itoa(sib.Process.Pid)
	attack := "cat /proc/" + pid + "/environ; tr '\\0' '\\n' < /proc/" + pid + "/environ; cat /proc/" + pid + "/cmdline; echo done"
	// The attack works outside the sandbox (same user, nothing in between).
	if out, _ := exec.Command("bash", "-c", attack).CombinedOutput(); !strings.Contains(string(out), secret) {
		t.Fatalf("the attack does not work even unsandboxed: %s", out)
	}
	run := func(t *testing.T) {
		work, _ := dirs(t)
		for _, p := range []string{"ww", "ro"} {
			pol := workspaceWrite
			if p == "ro" {
				pol = readOnly
			}
			out, _ := sh(t, pol, work, attack)
			if strings.Contains(out, secret) {
				t.Errorf("%s: ESCAPE: the sibling's environment was read: %s", p, out)
			}
			if !strings.Contains(out, "done") {
				t.Errorf("%s: the command did not run: %s", p, out)
			}
		}
	}
	t.Run("namespaces", func(t *testing.T) {
		if !namespacesAvailable() {
			t.Skip("no user namespaces")
		}
		run(t)
	})
	t.Run("landlock only", func(t *testing.T) {
		withoutNamespaces(t)
		run(t)
	})
}
