//go:build linux

package sandbox

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"go.uber.org/goleak"

	"github.com/grovecli/grove/protocol"
)

// dialEnv makes the test binary, run as a sandboxed command, dial the
// network address it names ("tcp:127.0.0.1:80", "unix:/path") and report.
const dialEnv = "GROVE_SANDBOX_TEST_DIAL"

func TestMain(m *testing.M) {
	MaybeRunHelper()
	if probe := os.Getenv(probeEnv); probe != "" {
		runProbe(probe) // exits
	}
	if os.Getenv(parentEnv) != "" {
		runParent() // exits
	}
	if addr := os.Getenv(dialEnv); addr != "" {
		network, address, _ := strings.Cut(addr, ":")
		c, err := net.Dial(network, address)
		if err != nil {
			fmt.Println("dial failed:", err)
			os.Exit(1)
		}
		_ = c.Close()
		fmt.Println("connected")
		os.Exit(0)
	}
	var opts []goleak.Option
	if os.Getenv("GROVE_HOME") == "" {
		// The placeholder records live in $GROVE_HOME: the tests keep
		// theirs out of the user's.
		home, err := os.MkdirTemp("", "grove-sandbox-test-home-")
		if err != nil {
			panic(err)
		}
		_ = os.Setenv("GROVE_HOME", home)
		opts = append(opts, goleak.Cleanup(func(code int) {
			_ = os.RemoveAll(home)
			os.Exit(code)
		}))
	}
	goleak.VerifyTestMain(m, opts...)
}

func requireLandlock(t *testing.T, minABI int) {
	t.Helper()
	abi, err := Supported()
	if err != nil {
		t.Skipf("kernel without Landlock, nothing to enforce with: %v", err)
	}
	if abi < minABI {
		t.Skipf("kernel Landlock ABI %d < %d", abi, minABI)
	}
}

// dirs returns a workspace and a directory outside it. TMPDIR, which
// workspace-write may write, is moved inside the workspace, so the outside
// directory is writable by nothing in the policy.
func dirs(t *testing.T) (work, outside string) {
	t.Helper()
	base := t.TempDir()
	work = filepath.Join(base, "work")
	tmp := filepath.Join(work, "tmp")
	outside = filepath.Join(base, "outside")
	for _, d := range []string{work, tmp, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("TMPDIR", tmp)
	return work, outside
}

// sh runs a bash script under policy in cwd through Start (the pool
// helper when namespaces are available) and returns its combined output
// and exit code.
func sh(t *testing.T, policy protocol.SandboxPolicy, cwd, script string) (string, int) {
	t.Helper()
	return runStart(t, policy, cwd, []string{"bash", "-c", script}, os.Environ())
}

func runStart(t *testing.T, policy protocol.SandboxPolicy, cwd string, argv, env []string) (string, int) {
	t.Helper()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	p, err := Start(StartRequest{Policy: policy, Cwd: cwd, Dir: cwd, Argv: argv, Env: env, Out: pw})
	_ = pw.Close()
	if err != nil {
		_ = pr.Close()
		t.Fatalf("Start: %v", err)
	}
	out, _ := io.ReadAll(pr)
	_ = pr.Close()
	code, err := p.Wait()
	if err != nil {
		t.Fatalf("Wait: %v", err)
	}
	return string(out), code
}

// deniedByKernel: Landlock says EACCES, the read-only mounts EROFS.
func deniedByKernel(out string) bool {
	return strings.Contains(out, "Permission denied") || strings.Contains(out, "Read-only file system")
}

// withoutNamespaces runs the rest of the test with the helper started
// without user, mount and PID namespaces (Landlock and seccomp only), as on
// systems that forbid unprivileged user namespaces.
func withoutNamespaces(t *testing.T) {
	t.Helper()
	namespacesAvailable() // settle the probe first
	old := nsProbe.ok
	nsProbe.ok = false
	t.Cleanup(func() { nsProbe.ok = old })
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func TestWorkspaceWrite(t *testing.T) {
	requireLandlock(t, 1)
	t.Run("namespaces", testWorkspaceWrite)
	t.Run("landlock only", func(t *testing.T) {
		withoutNamespaces(t)
		testWorkspaceWrite(t)
	})
}

func testWorkspaceWrite(t *testing.T) {
	work, outside := dirs(t)
	extra := filepath.Join(filepath.Dir(outside), "extra")
	if err := os.Mkdir(extra, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(work, "escape")); err != nil {
		t.Fatal(err)
	}
	policy := protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxWorkspaceWrite, WritableRoots: []string{extra}}
	for _, tc := range []struct {
		name, script string
		ok           bool
		created      string // must exist afterwards when ok, must not when denied
	}{
		{"cwd", "echo x > ok && cat ok", true, filepath.Join(work, "ok")},
		{"new directories in cwd", "mkdir -p a/b && echo x > a/b/f", true, filepath.Join(work, "a/b/f")},
		{"link across directories of the workspace", "mkdir d1 d2 && echo x > d1/f && ln d1/f d2/f", true, filepath.Join(work, "d2/f")},
		{"temp dir", `echo x > "$TMPDIR/t"`, true, filepath.Join(work, "tmp/t")},
		{"extra writable root", "echo x > " + filepath.Join(extra, "e"), true, filepath.Join(extra, "e")},
		{"null device", "echo x > /dev/null && echo fine", true, ""},
		{"read outside", "ls " + outside + " && cat /etc/hostname", true, ""},
		{"write outside", "echo x > " + filepath.Join(outside, "f"), false, filepath.Join(outside, "f")},
		{"mkdir outside", "mkdir " + filepath.Join(outside, "d"), false, filepath.Join(outside, "d")},
		{"through a symlink to outside", "echo x > escape/f", false, filepath.Join(outside, "f")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, code := sh(t, policy, work, tc.script)
			if tc.ok {
				if code != 0 {
					t.Fatalf("want success, exit %d: %s", code, out)
				}
				if tc.created != "" && !exists(tc.created) {
					t.Fatalf("%s was not created: %s", tc.created, out)
				}
				return
			}
			if code == 0 || !deniedByKernel(out) {
				t.Fatalf("want EACCES or EROFS, exit %d: %s", code, out)
			}
			if exists(tc.created) {
				t.Fatalf("%s was created despite the sandbox", tc.created)
			}
		})
	}
}

func TestReadOnly(t *testing.T) {
	requireLandlock(t, 1)
	t.Run("namespaces", testReadOnly)
	t.Run("landlock only", func(t *testing.T) {
		withoutNamespaces(t)
		testReadOnly(t)
	})
}

func testReadOnly(t *testing.T) {
	work, _ := dirs(t)
	keep := filepath.Join(work, "keep")
	if err := os.WriteFile(keep, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	policy := protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxReadOnly}
	for _, script := range []string{"echo x > f", `echo x > "$TMPDIR/f"`, "mkdir d", "rm keep"} {
		out, code := sh(t, policy, work, script)
		if code == 0 || !deniedByKernel(out) {
			t.Errorf("%q: want a denial, exit %d: %s", script, code, out)
		}
	}
	if exists(filepath.Join(work, "f")) || exists(filepath.Join(work, "d")) || exists(filepath.Join(work, "tmp/f")) || !exists(keep) {
		t.Fatal("read-only sandbox let a write through")
	}
	if out, code := sh(t, policy, work, "cat /etc/hostname >/dev/null && ls / >/dev/null && echo fine"); code != 0 || !strings.Contains(out, "fine") {
		t.Fatalf("reading under read-only: exit %d: %s", code, out)
	}
}

func TestDangerFullAccess(t *testing.T) {
	work, outside := dirs(t)
	policy := protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxDangerFullAccess}
	// Supervised by the helper (so its tree dies with it) but unconfined.
	if out, code := sh(t, policy, work, "readlink /proc/$$/ns/user /proc/$PPID/ns/user | uniq | wc -l"); code != 0 || strings.TrimSpace(out) != "1" {
		t.Fatalf("danger-full-access runs in a namespace of its own: exit %d: %s", code, out)
	}
	if out, code := sh(t, policy, work, "echo x > "+filepath.Join(outside, "f")); code != 0 {
		t.Fatalf("full access: exit %d: %s", code, out)
	}
}

func TestNetwork(t *testing.T) {
	requireLandlock(t, 4)
	work, outside := dirs(t)
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer tcp.Close()
	sock := filepath.Join(outside, "s.sock")
	unix, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		policy protocol.SandboxPolicy
		addr   string
		want   string
	}{
		{"tcp blocked under workspace-write", protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxWorkspaceWrite}, "tcp:" + tcp.Addr().String(), "socket: operation not permitted"},
		{"tcp blocked under read-only", protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxReadOnly}, "tcp:" + tcp.Addr().String(), "socket: operation not permitted"},
		{"tcp allowed with network_access", protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxWorkspaceWrite, NetworkAccess: true}, "tcp:" + tcp.Addr().String(), "connected"},
		{"unix listener outside blocked", protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxReadOnly}, "unix:" + sock, "connect: operation not permitted"},
		{"unix listener reachable with network_access", protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxWorkspaceWrite, NetworkAccess: true}, "unix:" + sock, "connected"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd, err := Command(context.Background(), tc.policy, work, []string{self})
			if err != nil {
				t.Fatal(err)
			}
			cmd.Env = append(os.Environ(), dialEnv+"="+tc.addr)
			out, _ := cmd.CombinedOutput()
			if !strings.Contains(string(out), tc.want) {
				t.Fatalf("want %q, got %s", tc.want, out)
			}
		})
	}
}

func TestSignalsStayInsideTheSandbox(t *testing.T) {
	requireLandlock(t, 6)
	work, _ := dirs(t)
	victim := exec.Command("sleep", "30")
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = victim.Process.Kill()
		_ = victim.Wait()
	}()
	policy := protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxWorkspaceWrite}
	out, code := sh(t, policy, work, "kill -TERM "+strconv.Itoa(victim.Process.Pid))
	// Landlock's scope says EPERM; in its own PID namespace the victim
	// does not even exist.
	if code == 0 || !(strings.Contains(out, "Operation not permitted") || strings.Contains(out, "No such process")) {
		t.Fatalf("a sandboxed command signalled a process outside: exit %d: %s", code, out)
	}
	if err := victim.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("victim gone: %v", err)
	}
	// Its own children are fair game.
	if out, code := sh(t, policy, work, "sleep 30 & kill -TERM $!; wait $!; echo status=$?"); code != 0 || !strings.Contains(out, "status=143") {
		t.Fatalf("signalling its own child: exit %d: %s", code, out)
	}
}

func TestNoLandlockRefusesInsteadOfRunningUnconfined(t *testing.T) {
	work, outside := dirs(t)
	old := abiProbe
	t.Cleanup(func() { abiProbe = old })
	for _, probe := range []func() (int, error){
		func() (int, error) { return -1, syscall.ENOSYS },
		func() (int, error) { return 0, nil },
	} {
		abiProbe = probe
		if _, err := Supported(); err == nil {
			t.Fatal("Supported reported Landlock")
		}
		marker := filepath.Join(outside, "ran")
		for _, mode := range []protocol.SandboxMode{protocol.SandboxWorkspaceWrite, protocol.SandboxReadOnly} {
			cmd, err := Command(context.Background(), protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: mode}, work, []string{"touch", marker})
			want := fmt.Sprintf("sandbox mode %s requires Landlock, which this kernel does not provide; set sandbox_mode = \"danger-full-access\" to run unconfined", mode)
			if err == nil || cmd != nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("want a refusal %q, got %v", want, err)
			}
		}
		if exists(marker) {
			t.Fatal("command ran unconfined")
		}
		// Full access does not need Landlock.
		if _, err := Command(context.Background(), protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxDangerFullAccess}, work, []string{"true"}); err != nil {
			t.Fatalf("danger-full-access without Landlock: %v", err)
		}
	}
}

func TestCommandRejectsBadInput(t *testing.T) {
	for _, tc := range []struct {
		policy protocol.SandboxPolicy
		argv   []string
		want   string
	}{
		{protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: "sideways"}, []string{"true"}, `unknown sandbox mode "sideways"`},
		{protocol.SandboxPolicy{}, []string{"true"}, `unknown sandbox mode ""`},
		{protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxReadOnly}, nil, "empty command"},
	} {
		if _, err := Command(context.Background(), tc.policy, t.TempDir(), tc.argv); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v %v: want %q, got %v", tc.policy, tc.argv, tc.want, err)
		}
	}
}

// The helper never falls through to the program it lives in, and never
// runs the command when it cannot confine it.
func TestHelperFailsClosed(t *testing.T) {
	requireLandlock(t, 1)
	work, outside := dirs(t)
	marker := filepath.Join(outside, "ran")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no arguments", nil, "usage"},
		{"no separator", []string{`{"policy":{"mode":"read-only"}}`, "touch", marker}, "usage"},
		{"no command", []string{`{"policy":{"mode":"read-only"}}`, "--"}, "usage"},
		{"bad json", []string{`{"policy":`, "--", "touch", marker}, "decode the sandbox policy"},
		{"unknown field", []string{`{"policy":{"mode":"read-only"},"rootz":[]}`, "--", "touch", marker}, "unknown field"},
		{"unknown mode", []string{`{"policy":{"mode":"sideways"}}`, "--", "touch", marker}, `unknown sandbox mode "sideways"`},
		{"relative dir", []string{`{"policy":{"mode":"read-only"},"dir":"rel"}`, "--", "touch", marker}, "not absolute"},
		{"relative root", []string{`{"policy":{"mode":"workspace-write"},"roots":["rel"]}`, "--", "touch", marker}, "not absolute"},
		{"missing command", []string{`{"policy":{"mode":"read-only"}}`, "--", "grove-no-such-command"}, "grove-no-such-command"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(self, append([]string{HelperArg}, tc.args...)...)
			cmd.Dir = work
			out, err := cmd.CombinedOutput()
			if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 126 || !strings.Contains(string(out), "grove sandbox: ") || !strings.Contains(string(out), tc.want) {
				t.Fatalf("want exit 126 naming %q, got %v: %s", tc.want, err, out)
			}
			if strings.Contains(string(out), "PASS") || strings.Contains(string(out), "testing:") {
				t.Fatalf("helper fell through to the test binary: %s", out)
			}
		})
	}
	if exists(marker) {
		t.Fatal("a malformed helper invocation ran the command")
	}
}

func TestWritableRoots(t *testing.T) {
	work, outside := dirs(t)
	link := filepath.Join(outside, "link-to-work")
	if err := os.Symlink(work, link); err != nil {
		t.Fatal(err)
	}
	got := WritableRoots(protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxWorkspaceWrite, WritableRoots: []string{"sub", outside, link, ""}}, link)
	want := []string{work, filepath.Join(work, "sub"), outside, filepath.Join(work, "tmp")}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("roots:\n got %q\nwant %q", got, want)
	}
	for _, mode := range []protocol.SandboxMode{protocol.SandboxReadOnly, protocol.SandboxDangerFullAccess} {
		if r := WritableRoots(protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: mode, WritableRoots: []string{outside}}, work); r != nil {
			t.Errorf("%s has roots %v", mode, r)
		}
	}
}

func TestCheckWritable(t *testing.T) {
	work, outside := dirs(t)
	if err := os.MkdirAll(filepath.Join(outside, "deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{
		"escape":  outside,                          // directory outside
		"dangle":  filepath.Join(outside, "new.go"), // not existing yet
		"up":      filepath.Join(outside, "deep"),   // up/.. is outside, not the workspace
		"rel-in":  "sub",                            // relative, stays inside
		"loop-a":  "loop-b",
		"loop-b":  "loop-a",
		"in-link": filepath.Join(work, "sub"),
	} {
		if err := os.Symlink(target, filepath.Join(work, name)); err != nil {
			t.Fatal(err)
		}
	}
	ws := protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxWorkspaceWrite}
	for _, tc := range []struct {
		name   string
		policy protocol.SandboxPolicy
		path   string
		want   string // "" = writable, else a substring of the error
	}{
		{"new file in new dirs", ws, filepath.Join(work, "a/b/new.go"), ""},
		{"relative to cwd", ws, "a/new.go", ""},
		{"cwd itself", ws, work, ""},
		{"temp dir", ws, filepath.Join(work, "tmp/x"), ""},
		{"link inside the workspace", ws, filepath.Join(work, "rel-in/x"), ""},
		{"absolute link back inside", ws, filepath.Join(work, "in-link/x"), ""},
		{"outside", ws, filepath.Join(outside, "x"), "outside the writable roots"},
		{"dot-dot out", ws, "../outside/x", "outside the writable roots"},
		{"through a directory link", ws, filepath.Join(work, "escape/x"), "resolves to " + filepath.Join(outside, "x")},
		{"dangling link", ws, filepath.Join(work, "dangle"), "resolves to " + filepath.Join(outside, "new.go")},
		{"dot-dot after a link", ws, filepath.Join(work, "up") + "/../x", "resolves to " + filepath.Join(outside, "x")},
		{"symlink loop", ws, filepath.Join(work, "loop-a/x"), "too many levels of symbolic links"},
		{"error lists the roots", ws, "/etc/passwd", work + ", " + filepath.Join(work, "tmp")},
		{"extra root", protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxWorkspaceWrite, WritableRoots: []string{outside}}, filepath.Join(outside, "x"), ""},
		{"root of the filesystem as a root", protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxWorkspaceWrite, WritableRoots: []string{"/"}}, "/etc/x", ""},
		{"git hooks", ws, filepath.Join(work, ".git/hooks/pre-commit"), "inside " + filepath.Join(work, ".git") + ", which stays read-only"},
		{"agent config", ws, ".claude/settings.json", "stays read-only"},
		{"a worktree's .git file", ws, ".git", "stays read-only"},
		{"grove config in an extra root", protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxWorkspaceWrite, WritableRoots: []string{outside}}, filepath.Join(outside, ".grove/config.toml"), "stays read-only"},
		{"a name that only starts like one", ws, ".github/workflows/x.yml", ""},
		{"read-only", protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxReadOnly}, filepath.Join(work, "x"), "read-only"},
		{"danger-full-access", protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxDangerFullAccess}, "/etc/x", ""},
		{"unknown mode", protocol.SandboxPolicy{}, filepath.Join(work, "x"), "unknown sandbox mode"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckWritable(tc.policy, work, tc.path)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("want writable, got %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("want an error with %q, got %v", tc.want, err)
			case err != nil && !strings.Contains(err.Error(), tc.path):
				t.Fatalf("error does not name the path %s: %v", tc.path, err)
			}
		})
	}
}
