//go:build linux

package sandbox

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"github.com/grovecli/grove/protocol"
)

// BenchmarkHelper is the cost of starting `true` through the helper, per
// mode, with and without namespaces, next to a plain fork/exec.
//
//	go test ./core/sandbox -run '^$' -bench Helper -benchtime 100x
//
// GROVE_BENCH_HELPER=/path/to/grove measures that binary as the helper
// (the test binary's init differs from grove's).
func BenchmarkHelper(b *testing.B) {
	work := b.TempDir()
	if bin := os.Getenv("GROVE_BENCH_HELPER"); bin != "" {
		helperOverride = bin
		defer func() { helperOverride = "" }()
	}
	b.Run("plain exec", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command("true").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, ns := range []bool{true, false} {
		for _, p := range []protocol.SandboxPolicy{fullAccess, readOnly, workspaceWrite} {
			if p.Mode == protocol.SandboxDangerFullAccess && !ns {
				continue
			}
			name := string(p.Mode)
			if !ns && p.Mode != protocol.SandboxDangerFullAccess {
				name += " landlock only"
			}
			b.Run(name, func(b *testing.B) {
				namespacesAvailable()
				old := nsProbe.ok
				nsProbe.ok = old && ns
				defer func() { nsProbe.ok = old }()
				for b.Loop() {
					cmd, err := Command(context.Background(), p, work, []string{"true"})
					if err != nil {
						b.Fatal(err)
					}
					if out, err := cmd.CombinedOutput(); err != nil {
						b.Fatalf("%v: %s", err, out)
					}
				}
			})
		}
	}
}
