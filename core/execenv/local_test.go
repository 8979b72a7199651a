package execenv

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/grovecli/grove/core/sandbox"
	"github.com/grovecli/grove/core/testkit"
	"github.com/grovecli/grove/protocol"
)

// lockedBuffer is an io.Writer tests can read while a command writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// restricted is workspace-write where the kernel has Landlock.
func restricted(t *testing.T) protocol.SandboxPolicy {
	if _, err := sandbox.Supported(); err != nil {
		t.Logf("no Landlock (%v): running unconfined", err)
		return protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxDangerFullAccess}
	}
	return protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxWorkspaceWrite}
}

func TestLocalStartStdinOutputAndExit(t *testing.T) {
	dir := t.TempDir()
	var out lockedBuffer
	p, err := NewLocal().Start(context.Background(), ExecRequest{
		Argv: []string{"bash", "-c", "read x; echo got:$x; echo err >&2; exit 3"}, Cwd: dir,
		Env: os.Environ(), Stdin: []byte("hi\n"), Policy: restricted(t), Output: &out,
	})
	if err != nil {
		t.Fatal(err)
	}
	code, err := p.Wait()
	if err != nil || code != 3 {
		t.Fatalf("Wait = %d, %v", code, err)
	}
	if got := out.String(); got != "got:hi\nerr\n" {
		t.Fatalf("output %q", got)
	}
}

// Cancelling the context kills the command with everything it started,
// also a child in a session of its own.
func TestLocalCancelKillsTheGroup(t *testing.T) {
	dir := t.TempDir()
	var out lockedBuffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p, err := NewLocal().Start(ctx, ExecRequest{
		Argv: []string{"bash", "-c", "setsid sleep 300 & echo $!; sleep 300"}, Cwd: dir, Env: os.Environ(),
		Policy: protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxDangerFullAccess}, Output: &out,
	})
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	testkit.Eventually(t, "the background pid", func() bool {
		pid, err = strconv.Atoi(strings.TrimSpace(out.String()))
		return err == nil
	})
	cancel()
	if _, err := p.Wait(); err != nil {
		t.Fatalf("Wait after cancel: %v", err)
	}
	testkit.Eventually(t, "the setsid child to die", func() bool {
		return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
	})
}

func TestLocalFileOperations(t *testing.T) {
	dir := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(dir, "sub", ".git"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "b.txt"), []byte("bee\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "sub", "a.txt"), []byte("ay\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "sub", ".git", "HEAD"), []byte("x"), 0o644))
	ctx := context.Background()
	l := NewLocal()
	st, err := l.Stat(ctx, filepath.Join(dir, "b.txt"))
	if err != nil || st.Size != 4 || st.IsDir() || st.Name != "b.txt" {
		t.Fatalf("Stat = %+v, %v", st, err)
	}
	if _, err := l.Stat(ctx, filepath.Join(dir, "nope")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Stat of a missing file: %v", err)
	}
	des, err := l.ReadDir(ctx, dir)
	if err != nil || len(des) != 2 || des[0].Name != "b.txt" || !des[1].Type.IsDir() {
		t.Fatalf("ReadDir = %+v, %v", des, err)
	}
	f, err := l.Open(ctx, filepath.Join(dir, "sub", "a.txt"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(f)
	_ = f.Close()
	if string(b) != "ay\n" {
		t.Fatalf("Open read %q", b)
	}
	w, err := l.Walk(ctx, dir, 10)
	if err != nil || len(w.Files) != 2 || w.Files[0].Rel != "b.txt" || w.Files[1].Rel != "sub/a.txt" || w.Truncated {
		t.Fatalf("Walk = %+v, %v", w, err)
	}
	if w, _ := l.Walk(ctx, dir, 1); !w.Truncated || len(w.Files) != 1 {
		t.Fatalf("Walk with max 1 = %+v", w)
	}
}

func TestLocalApplyPatchChecksBeforeWriting(t *testing.T) {
	if _, err := sandbox.Supported(); err != nil {
		t.Skipf("workspace-write needs Landlock here: %v", err)
	}
	cwd, outside := t.TempDir(), t.TempDir()
	t.Setenv("TMPDIR", t.TempDir())
	ws := protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxWorkspaceWrite}
	ctx := context.Background()
	in := "*** Begin Patch\n*** Add File: in.txt\n+x\n*** End Patch"
	res, err := NewLocal().ApplyPatch(ctx, PatchRequest{Cwd: cwd, Input: in, Policy: ws})
	if err != nil || res.Applied || len(res.Files) != 1 || res.Files[0] != "in.txt" || len(res.Outside) != 0 {
		t.Fatalf("check = %+v, %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(cwd, "in.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("a check wrote the file")
	}
	res, err = NewLocal().ApplyPatch(ctx, PatchRequest{Cwd: cwd, Input: in, Policy: ws, Apply: true})
	if err != nil || !res.Applied || res.Summary != "patched 1 file (+1 -0)" || !strings.Contains(res.Report, "A in.txt") {
		t.Fatalf("apply = %+v, %v", res, err)
	}
	out := "*** Begin Patch\n*** Add File: " + filepath.Join(outside, "o.txt") + "\n+x\n*** End Patch"
	res, err = NewLocal().ApplyPatch(ctx, PatchRequest{Cwd: cwd, Input: out, Policy: ws, Apply: true})
	if err != nil || res.Applied || len(res.Outside) != 1 || !strings.Contains(res.Outside[0], "outside the writable roots") {
		t.Fatalf("outside without approval = %+v, %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(outside, "o.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("an unapproved write outside the roots landed")
	}
	// Approval covers the resolved paths the check showed, and no others.
	if _, err := NewLocal().ApplyPatch(ctx, PatchRequest{Cwd: cwd, Input: out, Policy: ws, Apply: true, Outside: true}); err == nil || !strings.Contains(err.Error(), "was not approved") {
		t.Fatalf("approved without the paths: %v", err)
	}
	chk, _ := NewLocal().ApplyPatch(ctx, PatchRequest{Cwd: cwd, Input: out, Policy: ws})
	if len(chk.NeedApproval) != 1 || chk.NeedApproval[0] != filepath.Join(outside, "o.txt") {
		t.Fatalf("need approval %q", chk.NeedApproval)
	}
	res, err = NewLocal().ApplyPatch(ctx, PatchRequest{Cwd: cwd, Input: out, Policy: ws, Apply: true, Outside: true, ApprovedPaths: chk.NeedApproval})
	if err != nil || !res.Applied {
		t.Fatalf("approved outside = %+v, %v", res, err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
