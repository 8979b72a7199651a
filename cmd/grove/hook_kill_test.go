package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/testkit"
)

// Issue 36 item 4: a hook running `sleep 300` (and its shell) outlived
// grove's kill -9 under init and would have run the rest of the hook.
// Hooks now run through the sandbox helper, which watches grove: a real
// grove, killed while a real hook runs, leaves no hook process behind —
// in the session's sandbox and in a hook marked `grove_sandbox = "none"`.
func TestHookDiesWithGroveKill9(t *testing.T) {
	for _, tc := range []struct{ name, sandbox, token string }{
		{"sandboxed", "", "3004"},
		{"unsandboxed", `grove_sandbox = "none"`, "3005"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hookEnv(t)
			home := t.TempDir()
			proj := hookProject(t, `{"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"sleep `+tc.token+`; touch after","timeout":600}]}]}}`)
			cfg := "[projects." + quote(proj) + "]\ntrust_level = \"trusted\"\n"
			if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, _, err := runCLI(t, home, "", "hooks", "trust", "--all", "-C", proj); err != nil {
				t.Fatal(err)
			}
			if tc.sandbox != "" {
				b, _ := os.ReadFile(filepath.Join(home, "config.toml"))
				s := strings.Replace(string(b), ":user_prompt_submit:0:0\"]\n", ":user_prompt_submit:0:0\"]\n"+tc.sandbox+"\n", 1)
				if s == string(b) {
					t.Fatalf("no table for the hook:\n%s", b)
				}
				os.WriteFile(filepath.Join(home, "config.toml"), []byte(s), 0o600)
			}
			cmd := exec.Command(groveBin, "exec", "--demo", "-C", proj, "hello")
			cmd.Env = append(os.Environ(), "GROVE_HOME="+home)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Wait()
			token := "sleep\x00" + tc.token
			waitFor(t, func() bool { return len(pidsWith(token)) > 0 }, "the hook to start")
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			waitFor(t, func() bool { return len(pidsWith(token)) == 0 }, "the hook to die with grove")
		})
	}
}

// waitFor waits for cond, a process starting or ending, which no event
// announces.
func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	testkit.Eventually(t, what, cond)
}

// pidsWith lists the live (not zombie) processes whose command line,
// arguments joined by NUL, holds tok as whole arguments.
func pidsWith(tok string) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cl, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !strings.Contains(string(cl), tok+"\x00") {
			continue
		}
		if st, _ := os.ReadFile("/proc/" + e.Name() + "/stat"); strings.Contains(string(st), ") Z ") {
			continue
		}
		out = append(out, pid)
	}
	return out
}

// Red team (issue 31, an angle not listed): a hook is a way for project
// content to read grove's environment. A trusted hook dumps its own
// environment and its parent's (/proc/$PPID/environ: in the sandbox, the
// helper) while grove holds a provider key and a token: neither appears.
func TestRedteamHookEnvironmentHoldsNoSecret(t *testing.T) {
	hookEnv(t)
	t.Setenv("OPENAI_API_KEY", "sk-live-hooksecret")
	t.Setenv("GITHUB_TOKEN", "ghp_hooksecret")
	t.Setenv("STRIPE_SK", "sk_live_hooksecret")
	home := t.TempDir()
	dump := filepath.Join(os.Getenv("TMPDIR"), "hookenv.txt")
	proj := hookProject(t, `{"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"env > `+dump+`; cat /proc/$PPID/environ >> `+dump+` 2>/dev/null; true"}]}]}}`)
	cfg := "[projects." + quote(proj) + "]\ntrust_level = \"trusted\"\n"
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCLI(t, home, "", "hooks", "trust", "--all", "-C", proj); err != nil {
		t.Fatal(err)
	}
	if _, errOut, err := runCLI(t, home, "", "exec", "--demo", "-C", proj, "--approve-workdirs", "hello"); err != nil {
		t.Fatalf("exec: %v\n%s", err, errOut)
	}
	b, err := os.ReadFile(dump)
	if err != nil || !strings.Contains(string(b), "PATH=") {
		t.Fatalf("the hook did not run: %v %q", err, b)
	}
	if strings.Contains(string(b), "hooksecret") {
		t.Fatalf("a secret reached the hook's environment:\n%s", b)
	}
}
