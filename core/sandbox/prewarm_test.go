//go:build linux

package sandbox

import (
	"os"
	"testing"
	"time"

	"github.com/grovecli/grove/protocol"
)

// dropPools kills every pool helper, as in a fresh grove process.
func dropPools() {
	pools.mu.Lock()
	defer pools.mu.Unlock()
	for k, h := range pools.helpers {
		h.kill()
		delete(pools.helpers, k)
	}
}

// runTrue runs `true` through Start and returns how long it took.
func runTrue(tb testing.TB, policy protocol.SandboxPolicy, cwd string) time.Duration {
	tb.Helper()
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		tb.Fatal(err)
	}
	defer devnull.Close()
	start := time.Now()
	p, err := Start(StartRequest{Policy: policy, Cwd: cwd, Dir: cwd, Argv: []string{"true"}, Env: []string{"PATH=/usr/bin:/bin"}, Out: devnull})
	if err != nil {
		tb.Fatal(err)
	}
	if code, err := p.Wait(); err != nil || code != 0 {
		tb.Fatalf("true: %d %v", code, err)
	}
	return time.Since(start)
}

// Prewarm starts the helper Start then uses: after it, the first command
// starts no helper of its own (the pool holds one helper for the policy).
func TestPrewarmStartsTheHelperTheFirstCommandUses(t *testing.T) {
	if _, ok := pooledSpec(workspaceWrite, t.TempDir()); !ok {
		t.Skip("commands are not pooled here (no pidfd or Landlock)")
	}
	dropPools()
	work := t.TempDir()
	if err := Prewarm(workspaceWrite, work); err != nil {
		t.Fatal(err)
	}
	pools.mu.Lock()
	n := len(pools.helpers)
	var warmed *poolHelper
	for _, h := range pools.helpers {
		warmed = h
	}
	pools.mu.Unlock()
	if n != 1 {
		t.Fatalf("%d helpers after Prewarm, want 1", n)
	}
	runTrue(t, workspaceWrite, work)
	pools.mu.Lock()
	defer pools.mu.Unlock()
	for _, h := range pools.helpers {
		if h != warmed || len(pools.helpers) != 1 {
			t.Fatalf("the first command started another helper (%d helpers)", len(pools.helpers))
		}
	}
}

// BenchmarkFirstCommand is the first command of a process, with and
// without the helper started beforehand (what the engine does behind the
// first model request), and a later one.
//
//	go test ./core/sandbox -run '^$' -bench FirstCommand -benchtime 20x
func BenchmarkFirstCommand(b *testing.B) {
	work := b.TempDir()
	for _, name := range []string{"cold", "prewarmed", "later"} {
		b.Run(name, func(b *testing.B) {
			var total time.Duration
			for range b.N {
				if name != "later" {
					dropPools()
				}
				if name == "prewarmed" {
					if err := Prewarm(workspaceWrite, work); err != nil {
						b.Fatal(err)
					}
				}
				total += runTrue(b, workspaceWrite, work)
			}
			b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/command")
		})
	}
	dropPools()
}
