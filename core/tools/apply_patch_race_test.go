package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/grovecli/grove/protocol"
)

// TestApplyPatchSymlinkSwapRace is the attack: while 150 patches
// write into ws/d, another goroutine keeps swapping d for a symlink to a
// directory outside the writable roots. Paths are checked before writing,
// so only writes confined by the kernel keep every file inside.
func TestApplyPatchSymlinkSwapRace(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir()) // the outside dir must not be under the temp root
	ws, outside := t.TempDir(), t.TempDir()
	env := &Env{Cwd: ws, Sandbox: protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxWorkspaceWrite}, ApprovalPolicy: protocol.ApprovalNever}
	d, real := filepath.Join(ws, "d"), filepath.Join(ws, "d.real")
	if err := os.Mkdir(d, 0o755); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	var swaps atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			if os.Rename(d, real) != nil {
				continue
			}
			if os.Symlink(outside, d) == nil {
				swaps.Add(1)
				_ = os.Remove(d)
			}
			// A patch may have created d meanwhile: put the original back.
			for os.Rename(real, d) != nil {
				_ = os.RemoveAll(d)
			}
			time.Sleep(20 * time.Microsecond) // leave d a directory for a while

		}
	}()
	r := coreRegistry(t)
	succeeded := 0
	for i := range 150 {
		p := fmt.Sprintf("*** Begin Patch\n*** Add File: d/a%d.txt\n+x\n*** Add File: d/n%d/b.txt\n+y\n*** End Patch", i, i)
		res := run(t, r, env, "apply_patch", map[string]any{"input": p})
		if !res.IsError {
			succeeded++
		}
	}
	cancel()
	wg.Wait()
	entries, err := os.ReadDir(outside)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("file written outside the workspace: %s", filepath.Join(outside, e.Name()))
	}
	assertNoTempFiles(t, ws)
	if swaps.Load() == 0 || succeeded == 0 {
		t.Errorf("the race did not run: %d swaps, %d patches succeeded", swaps.Load(), succeeded)
	}
	t.Logf("%d swaps, %d of 150 patches succeeded", swaps.Load(), succeeded)
}

// BenchmarkApplyPatchConfined measures a two-file patch written beneath a
// workspace-write root (pinning, openat2, temp file and rename per file).
func BenchmarkApplyPatchConfined(b *testing.B) {
	ws := b.TempDir()
	env := &Env{Cwd: ws, Sandbox: protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxWorkspaceWrite}, ApprovalPolicy: protocol.ApprovalNever}
	r := coreRegistry(b)
	write(b, ws, "d/f.txt", "one\n")
	i := 0
	for b.Loop() {
		i++
		p := fmt.Sprintf("*** Begin Patch\n*** Add File: d/n%d/a.txt\n+x\n*** Update File: d/f.txt\n@@\n-one\n+one\n*** End Patch", i)
		if res := run(b, r, env, "apply_patch", map[string]any{"input": p}); res.IsError {
			b.Fatal(res.Output)
		}
	}
}
