package main

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/grovecli/grove/core/execenv"
	"github.com/grovecli/grove/core/sandbox"
	"github.com/grovecli/grove/core/testkit"
	"github.com/grovecli/grove/protocol"
)

// hostPolicy is workspace-write where the kernel can enforce it.
func hostPolicy(t *testing.T) protocol.SandboxPolicy {
	if _, err := sandbox.Supported(); err != nil {
		t.Skipf("the host's sandbox needs Landlock: %v", err)
	}
	return protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite}
}

// runOn runs a shell command on the backend and returns its output.
func runOn(t *testing.T, b execenv.Backend, ctx context.Context, cwd, script string, policy protocol.SandboxPolicy) (string, int, error) {
	t.Helper()
	var out syncBuffer
	p, err := b.Start(ctx, execenv.ExecRequest{Argv: []string{"bash", "-c", script}, Cwd: cwd, Env: []string{"PATH=/usr/bin:/bin"}, Policy: policy, Output: &out})
	if err != nil {
		return "", -1, err
	}
	code, err := p.Wait()
	return out.String(), code, err
}

// Against a real sshd: commands, patches and reads run on the host
// through its `grove exec-server`, the host's sandbox holds there, a
// dropped connection is an error for the call in flight (and the host
// kills the command), and the next call reconnects.
func TestSSHHostRunsToolsAndSurvivesADrop(t *testing.T) {
	needBinary(t)
	f := startSSHD(t)
	policy := hostPolicy(t)
	ws := t.TempDir()
	// Outside every writable root: not under the host's temp dir either.
	outside, err := os.MkdirTemp("/var/tmp", "grove-outside-")
	if err != nil {
		t.Skipf("no directory outside the temp dir to test the sandbox with: %v", err)
	}
	defer os.RemoveAll(outside)
	ctx := context.Background()
	r := execenv.NewRemote("box", execenv.DialSSH(f.host(groveBin)))
	defer r.Close()
	begin := time.Now()
	info, err := r.Connect(ctx)
	t.Logf("connect + handshake: %v", time.Since(begin))
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	if info.Host != "box" || info.Sandbox.OS != "linux" || info.Sandbox.Landlock == 0 {
		t.Fatalf("handshake = %+v", info)
	}

	out, code, err := runOn(t, r, ctx, ws, "pwd; echo on-host > made.txt", policy)
	if err != nil || code != 0 || strings.TrimSpace(out) != ws {
		t.Fatalf("command: %q %d %v", out, code, err)
	}
	// The host's sandbox: a write outside the workspace is denied there.
	out, code, err = runOn(t, r, ctx, ws, "echo x > "+filepath.Join(outside, "escape"), policy)
	if err != nil || code == 0 || !strings.Contains(out, "Permission denied") && !strings.Contains(out, "Read-only file system") {
		t.Fatalf("write outside the workspace: %q %d %v", out, code, err)
	}
	if _, err := os.Stat(filepath.Join(outside, "escape")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("the host's sandbox let a write outside the workspace through")
	}
	res, err := r.ApplyPatch(ctx, execenv.PatchRequest{Cwd: ws, Policy: policy, Apply: true,
		Input: "*** Begin Patch\n*** Update File: made.txt\n@@\n-on-host\n+patched\n*** End Patch"})
	if err != nil || !res.Applied || res.Summary != "patched 1 file (+1 -0)" && res.Summary != "patched 1 file (+1 -1)" {
		t.Fatalf("patch: %+v %v", res, err)
	}
	rc, err := r.Open(ctx, filepath.Join(ws, "made.txt"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(rc)
	_ = rc.Close()
	if string(b) != "patched\n" {
		t.Fatalf("read back %q", b)
	}
	if _, err := r.Stat(ctx, filepath.Join(ws, "nope")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("stat of a missing file on the host: %v", err)
	}

	// Drop the connection under a running command.
	var live syncBuffer
	p, err := r.Start(ctx, execenv.ExecRequest{Argv: []string{"bash", "-c", "sleep 300 & echo $!; wait"}, Cwd: ws,
		Env: []string{"PATH=/usr/bin:/bin"}, Policy: protocol.SandboxPolicy{Mode: protocol.SandboxDangerFullAccess}, Output: &live})
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	testkit.Eventually(t, "the command's pid", func() bool {
		pid, err = strconv.Atoi(strings.TrimSpace(live.String()))
		return err == nil
	}, live.String)
	if err := execenv.StopSSH(f.host(groveBin)); err != nil {
		t.Fatalf("drop the connection: %v", err)
	}
	_, werr := p.Wait()
	if werr == nil || !strings.Contains(werr.Error(), "connection to host box lost") {
		t.Fatalf("Wait after the drop = %v, want a lost-connection error", werr)
	}
	testkit.Eventually(t, "the host to kill the orphaned command", func() bool {
		return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
	}, func() string { return "pid " + strconv.Itoa(pid) })
	// The next call reconnects, saying what became of the dropped command.
	if out, code, err := runOn(t, r, ctx, ws, "cat made.txt", policy); err != nil || code != 0 || !strings.HasSuffix(out, "\npatched\n") || !strings.Contains(out, "grove reconnected to host box") {
		t.Fatalf("after reconnecting: %q %d %v", out, code, err)
	}
}

// The turnaround of a trivial command through the localhost SSH host
// against this machine, and the time to the first command on a cold host
// (no master connection yet). Logged for the notes, not asserted.
func TestSSHHostTurnaround(t *testing.T) {
	needBinary(t)
	f := startSSHD(t)
	policy := hostPolicy(t)
	ws := t.TempDir()
	ctx := context.Background()
	_ = execenv.StopSSH(f.host(groveBin))
	// What the host's account costs by itself: a fresh ssh running true
	// (its login shell's startup files included).
	begin := time.Now()
	if out, err := exec.Command("ssh", "-F", f.config, "-o", "ControlPath=none", "grovetest", "true").CombinedOutput(); err != nil {
		t.Fatalf("plain ssh: %v %s", err, out)
	}
	plain := time.Since(begin)
	begin = time.Now()
	r := execenv.NewRemote("box", execenv.DialSSH(f.host(groveBin)))
	defer r.Close()
	if _, code, err := runOn(t, r, ctx, ws, "true", policy); err != nil || code != 0 {
		t.Fatalf("first command: %d %v", code, err)
	}
	cold := time.Since(begin)
	median := func(b execenv.Backend) time.Duration {
		var ds []time.Duration
		for range 15 {
			s := time.Now()
			if _, code, err := runOn(t, b, ctx, ws, "true", policy); err != nil || code != 0 {
				t.Fatalf("true: %d %v", code, err)
			}
			ds = append(ds, time.Since(s))
		}
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		return ds[len(ds)/2]
	}
	local, remote := median(execenv.NewLocal()), median(r)
	t.Logf("plain `ssh host true`: %v; cold host, connect to first command done: %v; `true` median: local %v, ssh host %v (%.1fx)", plain, cold, local, remote, float64(remote)/float64(local))
}
