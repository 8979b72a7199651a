package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unicode/utf8"

	"github.com/grovecli/grove/core/testkit"
	"github.com/grovecli/grove/protocol"
)

func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return !strings.Contains(string(b), ") Z ")
}

// mustDie waits for pid to be gone after SIGKILL (delivery is asynchronous) and fails the
// test if it never goes.
func mustDie(t *testing.T, pid int) {
	t.Helper()
	testkit.Eventually(t, fmt.Sprintf("process %d to die", pid), func() bool { return !alive(pid) })
}

func pids(t *testing.T, file string) []int {
	t.Helper()
	b, _ := os.ReadFile(file)
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}

func TestExecBasics(t *testing.T) {
	r := coreRegistry(t)
	env := testEnv(t)
	_ = os.Mkdir(filepath.Join(env.Cwd, "sub"), 0o755)
	res := run(t, r, env, "exec_command", map[string]any{"cmd": "pwd; echo err >&2; exit 3", "workdir": "sub"})
	if res.IsError || res.ExitCode == nil || *res.ExitCode != 3 || !strings.Contains(res.Output, filepath.Join(env.Cwd, "sub")) || !strings.Contains(res.Output, "err") || !strings.Contains(res.Output, "Process exited with code 3") {
		t.Fatalf("exec: %+v", res)
	}
}

func TestExecTimeoutKillsProcessGroup(t *testing.T) {
	r := coreRegistry(t)
	env := testEnv(t)
	pidfile := filepath.Join(env.Cwd, "pids")
	res := run(t, r, env, "exec_command", map[string]any{"cmd": "sleep 100 & echo $! > " + pidfile + "; sleep 100 & echo $! >> " + pidfile + "; wait", "timeout_ms": 300})
	if !res.IsError || !strings.Contains(res.Output, "timed out") || *res.ExitCode != 124 {
		t.Fatalf("timeout: %+v", res)
	}
	for _, p := range pids(t, pidfile) {
		mustDie(t, p)
	}
}

func TestExecCancelKillsSubtree(t *testing.T) {
	r := coreRegistry(t)
	env := testEnv(t)
	pidfile := filepath.Join(env.Cwd, "pids")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan Result, 1)
	go func() {
		done <- r.Run(ctx, env, "exec_command", []byte(`{"cmd":"bash -c 'sleep 100 & echo $! > `+pidfile+`; wait'"}`))
	}()
	testkit.Eventually(t, "the command's pids", func() bool { return len(pids(t, pidfile)) > 0 })
	cancel()
	res := <-done
	if !res.IsError || !strings.Contains(res.Output, "interrupted") {
		t.Fatalf("cancel: %+v", res)
	}
	for _, p := range pids(t, pidfile) {
		mustDie(t, p)
	}
}

func TestExecOutputKeepsHeadAndTail(t *testing.T) {
	r := NewRegistry()
	_ = r.Register(NewExecCommand(ExecOptions{}))
	env := testEnv(t)
	res := run(t, r, env, "exec_command", map[string]any{"cmd": "echo START; seq 1 20000; echo END", "max_output_tokens": 250})
	if !strings.Contains(res.Output, "START") || !strings.Contains(res.Output, "END") || !strings.Contains(res.Output, "tokens truncated") || len(res.Output) > 1300 {
		t.Fatalf("truncation (%d bytes): %q", len(res.Output), res.Output)
	}
}

func TestExecSandboxed(t *testing.T) {
	r := coreRegistry(t)
	env := testEnv(t)
	t.Setenv("TMPDIR", env.Cwd)
	env.Sandbox = protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxWorkspaceWrite}
	outside := t.TempDir()
	res := run(t, r, env, "exec_command", map[string]any{"cmd": "echo hi > in.txt && echo hi > " + filepath.Join(outside, "out.txt")})
	if read(t, env.Cwd, "in.txt") != "hi\n" || read(t, outside, "out.txt") != "<missing>" || !res.SandboxDenied {
		t.Fatalf("sandbox: %q", res.Output)
	}
}

func TestExecApprovals(t *testing.T) {
	r := coreRegistry(t)
	for _, tc := range []struct {
		name     string
		policy   protocol.ApprovalPolicy
		args     map[string]any
		decision protocol.ReviewDecision
		nilAsk   bool
		asked    int
		want     string
		abort    bool
	}{
		{"untrusted safe", protocol.ApprovalUntrusted, map[string]any{"cmd": "ls"}, protocol.DecisionDenied, false, 0, "Process exited with code 0", false},
		{"untrusted rm denied", protocol.ApprovalUntrusted, map[string]any{"cmd": "rm -f x"}, protocol.DecisionDenied, false, 1, "command rejected by user", false},
		{"untrusted approved", protocol.ApprovalUntrusted, map[string]any{"cmd": "touch y"}, protocol.DecisionApproved, false, 1, "Process exited with code 0", false},
		{"abort", protocol.ApprovalUntrusted, map[string]any{"cmd": "touch y"}, protocol.DecisionAbort, false, 1, "aborted", true},
		{"on-request no ask", protocol.ApprovalOnRequest, map[string]any{"cmd": "touch z"}, protocol.DecisionDenied, false, 0, "Process exited with code 0", false},
		{"escalate asks", protocol.ApprovalOnRequest, map[string]any{"cmd": "true", "sandbox_permissions": "require_escalated", "justification": "needs net"}, protocol.DecisionApproved, false, 1, "Process exited with code 0", false},
		{"never escalate", protocol.ApprovalNever, map[string]any{"cmd": "true", "sandbox_permissions": "require_escalated"}, protocol.DecisionApproved, false, 0, "approval_policy = never", false},
		{"nobody to ask", protocol.ApprovalUntrusted, map[string]any{"cmd": "rm -f x"}, "", true, 0, "no one can approve", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := testEnv(t)
			asked := 0
			if !tc.nilAsk {
				env.Approve = func(_ context.Context, req protocol.ApprovalRequest) (protocol.ReviewDecision, error) {
					asked++
					if req.Kind != protocol.ApprovalExec || req.Command != tc.args["cmd"] {
						t.Errorf("request %+v", req)
					}
					return tc.decision, nil
				}
			}
			env.ApprovalPolicy = tc.policy
			res := run(t, r, env, "exec_command", tc.args)
			if asked != tc.asked || !strings.Contains(res.Output, tc.want) || res.Abort != tc.abort {
				t.Fatalf("asked %d, result %+v", asked, res)
			}
		})
	}
}

func TestExecOnFailureRetriesOutsideSandbox(t *testing.T) {
	for _, policy := range []protocol.ApprovalPolicy{protocol.ApprovalOnFailure, protocol.ApprovalUntrusted} {
		t.Run(string(policy), func(t *testing.T) { testSandboxDenialRetry(t, policy) })
	}
}

func testSandboxDenialRetry(t *testing.T, policy protocol.ApprovalPolicy) {
	r := coreRegistry(t)
	env := testEnv(t)
	t.Setenv("TMPDIR", env.Cwd)
	env.Sandbox = protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxReadOnly}
	env.ApprovalPolicy = policy
	asked := 0
	env.Approve = func(context.Context, protocol.ApprovalRequest) (protocol.ReviewDecision, error) {
		asked++
		return protocol.DecisionApproved, nil
	}
	res := run(t, r, env, "exec_command", map[string]any{"cmd": "echo ok > f.txt"})
	// untrusted asks once before (not a known-safe command) and once after the denial.
	want := 1
	if policy == protocol.ApprovalUntrusted {
		want = 2
	}
	if asked != want || *res.ExitCode != 0 || read(t, env.Cwd, "f.txt") != "ok\n" {
		t.Fatalf("%s: asked %d %+v", policy, asked, res)
	}
}

func TestClipCmdKeepsRunesWhole(t *testing.T) {
	long := strings.Repeat("é", 80) // two bytes each: a byte cut at 57 splits one
	got := clipCmd("echo " + long)
	if !utf8.ValidString(got) {
		t.Fatalf("clipCmd cut a rune: %q", got)
	}
	if n := utf8.RuneCountInString(got); n != 58 || !strings.HasSuffix(got, "…") {
		t.Fatalf("clipCmd = %q (%d runes), want 57 runes and …", got, n)
	}
	if got := clipCmd("  ls   -la  "); got != "ls -la" {
		t.Fatalf("clipCmd = %q", got)
	}
}
