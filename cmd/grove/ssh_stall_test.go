package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/grovecli/grove/core/execenv"
	"github.com/grovecli/grove/core/testkit"
)

// signalWriter is a command's output that says when a word appeared.
type signalWriter struct {
	syncBuffer
	word string
	once sync.Once
	seen chan struct{}
}

func (w *signalWriter) Write(p []byte) (int, error) {
	n, err := w.syncBuffer.Write(p)
	if strings.Contains(w.String(), w.word) {
		w.once.Do(func() { close(w.seen) })
	}
	return n, err
}

// procParent is pid's parent.
func procParent(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}

// findProcs are the pids whose command line (arguments NUL-separated)
// holds every one of parts.
func findProcs(parts ...string) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		line, all := string(b), true
		for _, p := range parts {
			all = all && strings.Contains(line, p)
		}
		if all {
			out = append(out, pid)
		}
	}
	return out
}

// controlHash is ssh's %C for the fixture: a master renames itself
// "ssh: <control path> [mux]", so this finds the masters of this sshd.
func controlHash(t *testing.T, f *sshdFixture) string {
	t.Helper()
	out, err := exec.Command("ssh", "-G", "-F", f.config, "-o", "ControlPath=/x/%C", "grovetest").Output()
	if err != nil {
		t.Fatalf("ssh -G: %v", err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if h, ok := strings.CutPrefix(line, "controlpath /x/"); ok {
			return h
		}
	}
	t.Fatalf("ssh -G printed no control path:\n%s", out)
	return ""
}

// stallTarget finds the process to SIGSTOP for one way a link stalls.
type stallTarget func(t *testing.T, f *sshdFixture, hostHome string) int

// execServerPID is the host's exec-server, from its session record.
func execServerPID(t *testing.T, _ *sshdFixture, hostHome string) int {
	t.Helper()
	recs, _ := filepath.Glob(filepath.Join(hostHome, "exec-server", "*.json"))
	if len(recs) != 1 {
		t.Fatalf("session records on the host: %v", recs)
	}
	b, err := os.ReadFile(recs[0])
	if err != nil {
		t.Fatal(err)
	}
	var rec struct{ PID int }
	if err := json.Unmarshal(b, &rec); err != nil || rec.PID == 0 {
		t.Fatalf("session record %s: %v", b, err)
	}
	return rec.PID
}

// sshdSessionPID is the sshd process serving the exec-server's session.
func sshdSessionPID(t *testing.T, f *sshdFixture, hostHome string) int {
	return procParent(t, execServerPID(t, f, hostHome))
}

// masterPID is the ControlMaster of the fixture's host, which renamed
// itself "ssh: <control dir>/<%C> [mux]".
func masterPID(t *testing.T, f *sshdFixture, _ string) int {
	t.Helper()
	pids := findProcs("ssh: ", "/"+controlHash(t, f)+" [mux]")
	if len(pids) != 1 {
		t.Fatalf("ControlMaster processes: %v", pids)
	}
	return pids[0]
}

// TestSSHHostStalledLink (issue 36.1): with a real sshd on loopback, the
// ControlMaster, the host's exec-server or its sshd session is SIGSTOPped
// while a command with a 3 s timeout runs (a network partition looks the
// same). The call ends by itself with "unreachable … fate is unknown"
// (never "killed", never a success after SIGCONT), and the next call
// reconnects on a fresh link, kills what the lost one left running, and
// says so in its output.
func TestSSHHostStalledLink(t *testing.T) {
	needBinary(t)
	for name, target := range map[string]stallTarget{"exec-server": execServerPID, "sshd-session": sshdSessionPID, "control-master": masterPID} {
		t.Run(name, func(t *testing.T) { stalledLinkCase(t, target) })
	}
}

func stalledLinkCase(t *testing.T, target stallTarget) {
	f := startSSHD(t)
	// Runs before sshd's cleanup: the masters this case started (the one
	// stalled and the fresh one grove moved to) end with it, not 60 s
	// (ControlPersist) later holding sshd's log pipe.
	hash := controlHash(t, f)
	t.Cleanup(func() {
		for _, pid := range append(findProcs("ssh\x00", f.config), findProcs("ssh: ", hash)...) {
			_ = syscall.Kill(pid, syscall.SIGCONT)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	policy := hostPolicy(t)
	hostHome, ws := t.TempDir(), t.TempDir()
	// grove on the host with its own home (the session records' place).
	wrapper := filepath.Join(t.TempDir(), "grove-on-host")
	writeFile(t, wrapper, fmt.Sprintf("#!/bin/sh\nGROVE_HOME=%q exec %q \"$@\"\n", hostHome, groveBin))
	if err := os.Chmod(wrapper, 0o755); err != nil {
		t.Fatal(err)
	}
	r := execenv.NewRemote("box", execenv.DialSSH(f.host(wrapper)))
	r.SetLinkTimes(execenv.LinkTimes{KeepAlive: 200 * time.Millisecond, DeadAfter: 2 * time.Second, KillGrace: 2 * time.Second})
	defer r.Close()
	if _, err := r.Connect(context.Background()); err != nil {
		t.Fatalf("connect: %v", err)
	}
	out := &signalWriter{word: "started", seen: make(chan struct{})}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second) // timeout_ms 3000
	defer cancel()
	p, err := r.Start(ctx, execenv.ExecRequest{Argv: []string{"bash", "-c", "echo started; sleep 20.5; echo late > fin"}, Cwd: ws,
		Env: []string{"PATH=/usr/bin:/bin"}, Policy: policy, Output: out})
	if err != nil {
		t.Fatal(err)
	}
	<-out.seen
	var sleeps []int
	testkit.Eventually(t, "the command's sleep", func() bool {
		sleeps = findProcs("sleep\x0020.5")
		return len(sleeps) == 1
	}, func() string { return fmt.Sprint(sleeps) })
	sleepFD, err := unix.PidfdOpen(sleeps[0], 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(sleepFD)
	stopped := target(t, f, hostHome)
	if err := syscall.Kill(stopped, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(stopped, syscall.SIGCONT) }) // before sshd's own cleanup
	stoppedAt := time.Now()

	waited := make(chan error, 1)
	go func() { _, err := p.Wait(); waited <- err }()
	select {
	case err = <-waited:
	case <-time.After(60 * time.Second):
		t.Fatal("the call on a stalled host is still open after 60 s")
	}
	t.Logf("the stalled call ended after %v: %v", time.Since(stoppedAt), err)
	if !errors.Is(err, execenv.ErrFateUnknown) || !strings.Contains(err.Error(), "unreachable") {
		t.Fatalf("Wait on a stalled host = %v, want unreachable with the command's fate unknown", err)
	}

	// The next call reconnects and kills what the lost session left.
	rctx, rcancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer rcancel()
	second, code, err := runOn(t, r, rctx, ws, "echo second", policy)
	if err != nil || code != 0 || !strings.Contains(second, "second") {
		t.Fatalf("after the stall: %q %d %v", second, code, err)
	}
	t.Logf("reconnected after %v: %q", time.Since(stoppedAt), second)
	if !strings.Contains(second, "killed what the lost connection left running") || !strings.Contains(second, "sleep 20.5") {
		t.Fatalf("the reconnect did not report what it killed: %q", second)
	}
	fds := []unix.PollFd{{Fd: int32(sleepFD), Events: unix.POLLIN}}
	if n, _ := unix.Poll(fds, 30_000); n != 1 {
		t.Fatal("the stalled session's command still runs after the reconnect")
	}
	if _, err := os.Stat(filepath.Join(ws, "fin")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("the command ran to its end")
	}
}
