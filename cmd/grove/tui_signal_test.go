package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/grovecli/grove/core/testkit"
)

// TestTUISignalsShutDownLikeCtrlC: the TUI (the offline demo, in tmux)
// receives SIGTERM or SIGHUP while agents work: it leaves the screen,
// closes every thread's rollout and exits with 143 or 129.
func TestTUISignalsShutDownLikeCtrlC(t *testing.T) {
	needBinary(t)
	if testing.Short() {
		t.Skip("tmux test skipped in -short mode")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed")
	}
	for _, tc := range []struct {
		sig  syscall.Signal
		code string
	}{{syscall.SIGTERM, "143"}, {syscall.SIGHUP, "129"}} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			home := filepath.Join(dir, "home")
			exitFile := filepath.Join(dir, "exit")
			// One tmux server per subtest: t.TempDir's base name ("001")
			// repeats, and a server still exiting refuses a new session.
			sock := fmt.Sprintf("grove-sig-%d-%d", os.Getpid(), tc.sig)
			tmux := func(args ...string) string {
				c := exec.Command("tmux", append([]string{"-L", sock}, args...)...)
				c.Env = append(os.Environ(), "TERM=xterm-256color")
				out, err := c.CombinedOutput()
				if err != nil {
					t.Fatalf("tmux %v: %v\n%s", args, err, out)
				}
				return string(out)
			}
			script := "env -u OPENAI_API_KEY -u OPENAI_BASE_URL GROVE_HOME=" + home + " TMPDIR=" + dir + " TERM=xterm-256color " + groveBin + "; echo $? > " + exitFile + "; sleep 30"
			tmux("new-session", "-d", "-s", "s", "-x", "100", "-y", "30", "sh", "-c", script)
			t.Cleanup(func() { _ = exec.Command("tmux", "-L", sock, "kill-server").Run() })
			testkit.Eventually(t, "the demo at work", func() bool {
				return strings.Contains(tmux("capture-pane", "-p", "-t", "s"), "another directory")
			}, func() string { return tmux("capture-pane", "-p", "-t", "s") })
			pid := grovePID(t, home)
			if err := syscall.Kill(pid, tc.sig); err != nil {
				t.Fatal(err)
			}
			testkit.Eventually(t, "grove to exit", func() bool {
				b, err := os.ReadFile(exitFile)
				return err == nil && len(bytes.TrimSpace(b)) > 0
			}, func() string { return tmux("capture-pane", "-p", "-t", "s") })
			b, _ := os.ReadFile(exitFile)
			if got := strings.TrimSpace(string(b)); got != tc.code {
				t.Fatalf("exit status %s, want %s", got, tc.code)
			}
			// Every rollout was closed.
			_ = filepath.WalkDir(filepath.Join(home, "sessions"), func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					if rb, _ := os.ReadFile(p); !bytes.Contains(rb, []byte(`"type":"thread_closed"`)) {
						t.Errorf("%s was not closed:\n%s", p, rb)
					}
				}
				return nil
			})
			logb, _ := os.ReadFile(filepath.Join(home, "log", "grove.log"))
			if !bytes.Contains(logb, []byte(`"msg":"shutdown: signal received"`)) || !bytes.Contains(logb, []byte(`"msg":"engine shutdown: event bus closed"`)) {
				t.Errorf("shutdown not logged:\n%s", logb)
			}
		})
	}
}

// grovePID finds the grove process serving home (not a sandbox helper it
// re-executed: their parent is grove itself).
func grovePID(t *testing.T, home string) int {
	t.Helper()
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.HasPrefix(cmdline, []byte(groveBin+"\x00")) && string(cmdline) != groveBin+"\x00" {
			continue
		}
		environ, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if !bytes.Contains(environ, []byte("GROVE_HOME="+home+"\x00")) {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		ppid, _ := strconv.Atoi(fields[1])
		parent, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(ppid), "cmdline"))
		if bytes.HasPrefix(parent, []byte(groveBin+"\x00")) {
			continue
		}
		return pid
	}
	t.Fatalf("no grove process for %s", home)
	return 0
}
