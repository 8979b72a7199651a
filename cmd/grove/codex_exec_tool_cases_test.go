package main

// Exec conformance, continued: the cases of openai/codex
// codex-rs/exec/tests/suite that run tools (apply_patch.rs, sandbox.rs,
// binary_recovery.rs), each naming its Codex file and test. Where Codex's
// test spawns a command under its sandbox directly, the grove case has the
// model run the same command through exec_command under `grove exec
// --sandbox …`, the way a grove user meets the sandbox.

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/grovecli/grove/core/model/modeltest"
)

// toolOutput is the output the model got back for callID in r (a
// function_call_output or custom_tool_call_output item).
func toolOutput(r modeltest.CapturedRequest, callID string) (string, bool) {
	input, _ := r.Body["input"].([]any)
	for _, raw := range input {
		it, _ := raw.(map[string]any)
		if (it["type"] == "function_call_output" || it["type"] == "custom_tool_call_output") && it["call_id"] == callID {
			switch o := it["output"].(type) {
			case string:
				return o, true
			default:
				b, _ := json.Marshal(o)
				return string(b), true
			}
		}
	}
	return "", false
}

// e2eStreams is Codex's run_e2e_exec_test (exec/tests/suite/common.rs):
// `exec --skip-git-repo-check -s danger-full-access foo` in dir, the n-th
// request answered with the n-th stream, every stream used.
func (x *codexExec) e2eStreams(streams ...[]string) {
	x.t.Helper()
	x.sseSequence(streams...)
	x.mustRun("--skip-git-repo-check", "-s", "danger-full-access", "foo")
	if n := len(x.srv.Requests()); n != len(streams) {
		x.t.Fatalf("%d requests, want %d", n, len(streams))
	}
}

// apply_patch.rs test_apply_patch_tool: an Add File as a custom tool
// call, then an Update File as a function call with {"input": …}.
func TestCodexExecApplyPatchTool(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	x.e2eStreams(
		[]string{evCustomToolCall("request_0", "apply_patch", "*** Begin Patch\n*** Add File: test.md\n+Hello world\n*** End Patch"), evCompleted("request_0")},
		[]string{evFunctionCall("request_1", "apply_patch", `{"input": "*** Begin Patch\n*** Update File: test.md\n@@\n-Hello world\n+Final text\n*** End Patch"}`), evCompleted("request_1")},
		[]string{evCompleted("request_2")},
	)
	if b, err := os.ReadFile(filepath.Join(x.cwd, "test.md")); err != nil || string(b) != "Final text\n" {
		t.Fatalf("test.md = %q, %v", b, err)
	}
}

// apply_patch.rs test_apply_patch_freeform_tool: two freeform patches,
// the second one's hunk anchored on a context line.
func TestCodexExecApplyPatchFreeformTool(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	x.e2eStreams(
		[]string{evCustomToolCall("request_0", "apply_patch", "*** Begin Patch\n*** Add File: app.py\n+class BaseClass:\n+  def method():\n+    return False\n*** End Patch"), evCompleted("request_0")},
		[]string{evCustomToolCall("request_1", "apply_patch", "*** Begin Patch\n*** Update File: app.py\n@@  def method():\n-    return False\n+\n+    return True\n*** End Patch"), evCompleted("request_1")},
		[]string{evCompleted("request_2")},
	)
	want := "class BaseClass:\n  def method():\n\n    return True\n"
	if b, err := os.ReadFile(filepath.Join(x.cwd, "app.py")); err != nil || string(b) != want {
		t.Fatalf("app.py = %q, %v; want %q", b, err, want)
	}
}

// apply_patch.rs test_standalone_exec_cli_can_use_apply_patch: the
// binary run as `--codex-run-as-apply-patch PATCH` is the apply_patch CLI.
func TestCodexExecStandaloneCLICanUseApplyPatch(t *testing.T) {
	t.Parallel()
	needBinary(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "source.txt")
	if err := os.WriteFile(src, []byte("original content\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(groveBin, "--codex-run-as-apply-patch", "*** Begin Patch\n*** Update File: source.txt\n@@\n-original content\n+modified by apply_patch\n*** End Patch")
	cmd.Dir = dir
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	if out.String() != "Success. Updated the following files:\nM source.txt\n" || errb.String() != "" {
		t.Fatalf("stdout %q, stderr %q", out.String(), errb.String())
	}
	if b, _ := os.ReadFile(src); string(b) != "modified by apply_patch\n" {
		t.Fatalf("source.txt = %q", b)
	}
}

// runInSandbox has the model run cmd (exec_command, in workdir when not
// "") under `grove exec --sandbox mode` with cwd as the session's
// directory, and returns what the command's output item said.
func (x *codexExec) runInSandbox(mode, workdir, command string, extra ...string) string {
	x.t.Helper()
	args := map[string]any{"cmd": command}
	if workdir != "" {
		args["workdir"] = workdir
	}
	b, _ := json.Marshal(args)
	x.sseSequence(
		[]string{evCreated("resp-1"), evFunctionCall("call-1", "exec_command", string(b)), evCompleted("resp-1")},
		[]string{evAssistantMessage("msg-1", "done"), evCompleted("resp-2")},
	)
	x.mustRun(append([]string{"--skip-git-repo-check", "--sandbox", mode, "-C", x.cwd}, append(extra, "run it")...)...)
	reqs := x.srv.Requests()
	out, ok := toolOutput(reqs[len(reqs)-1], "call-1")
	if !ok {
		x.t.Fatalf("no output for the command in the second request")
	}
	return out
}

// exitedZero reads exec_command's "Process exited with code N" line.
func exitedZero(out string) bool {
	return strings.Contains(out, "exited with code 0")
}

func systemPython(t *testing.T) string {
	for _, p := range []string{"/usr/bin/python3", "/bin/python3", "/usr/local/bin/python3"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Skip("python3 not found, skipping test")
	return ""
}

// sandbox.rs python_multiprocessing_lock_works_under_sandbox (a
// workspace-write sandbox; named semaphores live in /dev/shm).
func TestCodexExecPythonMultiprocessingLockWorksUnderSandbox(t *testing.T) {
	t.Parallel()
	py := systemPython(t)
	x := newCodexExec(t)
	script := x.write("lock.py", "from multiprocessing import Lock, Process\n\ndef f(lock):\n    with lock:\n        print(\"Lock acquired in child process\")\n\nif __name__ == '__main__':\n    lock = Lock()\n    p = Process(target=f, args=(lock,))\n    p.start()\n    p.join()\n")
	out := x.runInSandbox("workspace-write", "", py+" "+script)
	if !exitedZero(out) || !strings.Contains(out, "Lock acquired in child process") {
		t.Fatalf("python exited with: %s", out)
	}
}

// sandbox.rs python_getpwuid_works_under_sandbox (read-only).
func TestCodexExecPythonGetpwuidWorksUnderSandbox(t *testing.T) {
	t.Parallel()
	py := systemPython(t)
	x := newCodexExec(t)
	out := x.runInSandbox("read-only", "", py+` -c "import pwd, os; print(pwd.getpwuid(os.getuid()))"`)
	if !exitedZero(out) || !strings.Contains(out, "pwd.struct_passwd") {
		t.Fatalf("python exited with: %s", out)
	}
}

// sandbox.rs sandbox_distinguishes_command_and_policy_cwds: a command
// running in a directory outside the sandbox's root cannot write there,
// and can write under the root. grove refuses a workdir outside the
// workspace outright, so the command changes directory itself.
func TestCodexExecSandboxDistinguishesCommandAndPolicyCwds(t *testing.T) {
	t.Parallel()
	commandRoot := t.TempDir()
	noTmp := []string{"-c", "sandbox_workspace_write.exclude_tmpdir_env_var=true", "-c", "sandbox_workspace_write.exclude_slash_tmp=true"}
	x := newCodexExec(t)
	out := x.runInSandbox("workspace-write", "", "cd "+commandRoot+" && echo forbidden > forbidden.txt", noTmp...)
	if exitedZero(out) {
		t.Fatalf("sandbox unexpectedly allowed writing to command cwd: %s", out)
	}
	if _, err := os.Stat(filepath.Join(commandRoot, "forbidden.txt")); err == nil {
		t.Fatal("forbidden path should not have been created")
	}
	x = newCodexExec(t)
	allowed := filepath.Join(x.cwd, "allowed.txt")
	out = x.runInSandbox("workspace-write", "", "cd "+commandRoot+" && /usr/bin/touch "+allowed, noTmp...)
	if _, err := os.Stat(allowed); err != nil || !exitedZero(out) {
		t.Fatalf("sandbox blocked allowed write: %s", out)
	}
	// And a workdir outside the workspace is refused before anything runs.
	x = newCodexExec(t)
	if out := x.runInSandbox("workspace-write", commandRoot, "echo forbidden > forbidden.txt", noTmp...); !strings.Contains(out, "outside this thread's workspace") {
		t.Fatalf("workdir outside the workspace: %s", out)
	}
}

// sandbox.rs sandbox_blocks_first_time_dot_codex_creation: a workspace
// command cannot create .codex (and so cannot plant a config.toml).
func TestCodexExecSandboxBlocksFirstTimeDotCodexCreation(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	out := x.runInSandbox("workspace-write", "", `mkdir -p .codex && echo 'sandbox_mode = "danger-full-access"' > .codex/config.toml`)
	if exitedZero(out) {
		t.Fatalf("sandbox unexpectedly allowed first-time .codex creation: %s", out)
	}
	if st, err := os.Lstat(filepath.Join(x.cwd, ".codex")); err == nil && st.IsDir() {
		t.Fatalf(".codex should not be creatable as a directory")
	}
	if _, err := os.Stat(filepath.Join(x.cwd, ".codex", "config.toml")); err == nil {
		t.Fatal(".codex/config.toml should not have been created")
	}
}

// sandbox.rs allow_unix_socketpair_recvfrom: AF_UNIX socketpairs (dgram
// and stream) work under the read-only sandbox.
func TestCodexExecAllowUnixSocketpairRecvfrom(t *testing.T) {
	t.Parallel()
	py := systemPython(t)
	x := newCodexExec(t)
	script := x.write("sock.py", "import socket\n"+
		"a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)\na.send(b'hello_unix')\nassert b.recvfrom(64)[0] == b'hello_unix'\n"+
		"c, d = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)\nc.send(b'hello_unix')\nassert d.recv(64) == b'hello_unix'\nprint('socketpair ok')\n")
	out := x.runInSandbox("read-only", "", py+" "+script)
	if !exitedZero(out) || !strings.Contains(out, "socketpair ok") {
		t.Fatalf("socketpair under read-only: %s", out)
	}
}

// binary_recovery.rs test_binary_recovery_after_deletion and
// test_binary_recovery_fails_when_not_in_path: the binary deleted
// mid-run (an update replacing it) and no grove on PATH; the second
// patch still applies (grove's tools and sandbox helper run from the
// process already loaded, never from the path it was started as).
func TestCodexExecBinaryRecoveryAfterDeletion(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	copied := filepath.Join(t.TempDir(), "grove")
	b, err := os.ReadFile(groveBin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(copied, b, 0o755); err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int32 // handlers run on the server's goroutines
	x.srv.Handle(func(modeltest.CapturedRequest) modeltest.Reply {
		switch calls.Add(1) {
		case 1:
			return modeltest.Reply{Recorded: []string{evCustomToolCall("request_0", "apply_patch", "*** Begin Patch\n*** Add File: file1.txt\n+first file\n*** End Patch"), evCompleted("request_0")}}
		case 2:
			// file1.txt is written: the binary goes away now.
			if err := os.Remove(copied); err != nil {
				t.Errorf("remove the binary: %v", err)
			}
			return modeltest.Reply{Recorded: []string{evCustomToolCall("request_1", "apply_patch", "*** Begin Patch\n*** Add File: file2.txt\n+second file\n*** End Patch"), evCompleted("request_1")}}
		}
		return modeltest.Reply{Recorded: []string{evCompleted("request_2")}}
	})
	x.env["PATH"] = t.TempDir() + ":/usr/bin:/bin"
	cmd := x.command("--skip-git-repo-check", "-s", "danger-full-access", "create two files")
	cmd.Path, cmd.Args[0] = copied, copied
	var errb strings.Builder
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("should succeed with recovery: %v\n%s", err, errb.String())
	}
	if _, err := os.Stat(filepath.Join(x.cwd, "file2.txt")); err != nil {
		t.Fatalf("file2.txt must exist after the binary was deleted: %v", err)
	}
}
