package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/grovecli/grove/core/execenv"
	"github.com/grovecli/grove/core/testkit"
	"github.com/grovecli/grove/core/tools"
)

var sessionIDLine = regexp.MustCompile(`\nProcess running with session ID (\d+)\n`)

// Sessions on an SSH host (a real sshd on this machine): a tty session
// keeps a shell's state between writes, Ctrl+C stops a program there, and
// closing a session kills its whole tree on the host.
func TestSSHHostSessions(t *testing.T) {
	needBinary(t)
	f := startSSHD(t)
	policy := hostPolicy(t)
	r := execenv.NewRemote("box", execenv.DialSSH(f.host(groveBin)))
	defer r.Close()
	env := &tools.Env{ThreadID: "agent", Cwd: t.TempDir(), Sandbox: policy, Exec: r, Sessions: tools.NewSessionManager(0)}
	defer env.Sessions.Shutdown()
	reg := tools.NewRegistry()
	if err := tools.RegisterCore(reg); err != nil {
		t.Fatal(err)
	}
	call := func(name, args string) string {
		t.Helper()
		res := reg.Run(context.Background(), env, name, []byte(args))
		if res.IsError {
			t.Fatalf("%s %s: %s", name, args, res.Output)
		}
		return res.Output
	}
	session := func(out string) int {
		t.Helper()
		m := sessionIDLine.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("no session in %q", out)
		}
		id, _ := strconv.Atoi(m[1])
		return id
	}

	shell := session(call("exec_command", `{"cmd":"bash --norc --noprofile -i","tty":true,"yield_time_ms":1500}`))
	call("write_stdin", fmt.Sprintf(`{"session_id":%d,"chars":"export KEPT=kept\n","yield_time_ms":500}`, shell))
	out := call("write_stdin", fmt.Sprintf(`{"session_id":%d,"chars":"echo $KEPT-$((40+2))\n","yield_time_ms":1000}`, shell))
	for i := 0; i < 12 && !strings.Contains(out, "kept-42"); i++ { // a loaded host may answer after the yield
		out += call("write_stdin", fmt.Sprintf(`{"session_id":%d,"chars":""}`, shell))
	}
	if !strings.Contains(out, "kept-42") {
		t.Fatalf("the shell on the host kept no state: %q", out)
	}

	sleeper := session(call("exec_command", `{"cmd":"sleep 1000","tty":true,"yield_time_ms":500}`))
	if out := call("write_stdin", fmt.Sprintf(`{"session_id":%d,"chars":"\u0003","yield_time_ms":5000}`, sleeper)); !strings.Contains(out, "\nProcess exited with code 130\n") {
		t.Fatalf("Ctrl+C on the host: %q", out)
	}

	marker := fmt.Sprintf("1000.%d7", time.Now().UnixNano()%1e6)
	tree := session(call("exec_command", fmt.Sprintf(`{"cmd":"sleep %s & setsid sleep %s & echo up; wait","yield_time_ms":1000}`, marker, marker)))
	testkit.Eventually(t, "the session's processes on the host", func() bool { return len(hostProcs(marker)) >= 2 })
	pids := hostProcs(marker)
	if err := env.Sessions.Kill(env.ThreadID, tree); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			continue
		}
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, 10_000)
		_ = unix.Close(fd)
		if err != nil || n == 0 {
			t.Fatalf("process %d outlived its closed session on the host", pid)
		}
	}
}

// hostProcs lists the processes (the host is this machine) whose command
// line holds marker.
func hostProcs(marker string) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline")); err == nil && strings.Contains(string(b), marker) {
			out = append(out, pid)
		}
	}
	return out
}
