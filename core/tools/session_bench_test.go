package tools

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/grovecli/grove/protocol"
)

func benchEnv(b *testing.B, mode protocol.SandboxMode) *Env {
	b.Helper()
	env := &Env{ThreadID: "bench", Cwd: b.TempDir(), Sandbox: protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: mode}, Sessions: NewSessionManager(0)}
	b.Cleanup(env.Sessions.Shutdown)
	return env
}

// BenchmarkWriteStdinPoll is write_stdin on an idle session: an empty
// poll waits Codex's 5 s floor, so the cost over the floor is ns/op - 5e9
// (reported as over-floor-ms); a one-byte write to a tty session waits
// the 250 ms floor.
func BenchmarkWriteStdinPoll(b *testing.B) {
	env := benchEnv(b, protocol.SandboxWorkspaceWrite)
	r := coreRegistry(b)
	for _, c := range []struct {
		name, cmd, chars string
		tty              bool
		floor            time.Duration
	}{{"empty poll", "exec sleep 100000", "", false, minEmptyPollYield}, {"tty write", "exec cat >/dev/null", "\n", true, minYield}} {
		b.Run(c.name, func(b *testing.B) {
			s, err := StartShellSession(env, ShellSessionRequest{Command: c.cmd, TTY: c.tty})
			if err != nil {
				b.Fatal(err)
			}
			args := fmt.Sprintf(`{"session_id":%d,"chars":%q,"yield_time_ms":0}`, s.ID(), c.chars)
			var total time.Duration
			for b.Loop() {
				start := time.Now()
				if res := r.Run(context.Background(), env, "write_stdin", []byte(args)); res.IsError {
					b.Fatal(res.Output)
				}
				total += time.Since(start)
			}
			b.ReportMetric(float64(total/time.Duration(b.N)-c.floor)/1e6, "over-floor-ms")
		})
	}
}

// BenchmarkSessionThroughput is a command printing 100 MB, read to its end
// by exec_command (timeout_ms: wait for the end), with and without a tty,
// beside the plain command run directly into /dev/null by bash.
func BenchmarkSessionThroughput(b *testing.B) {
	const size = 100 << 20
	r := coreRegistry(b)
	for _, c := range []struct {
		mode protocol.SandboxMode
		tty  bool
	}{{protocol.SandboxWorkspaceWrite, false}, {protocol.SandboxWorkspaceWrite, true}, {protocol.SandboxDangerFullAccess, false}} {

		env := benchEnv(b, c.mode)
		tty := c.tty
		b.Run(fmt.Sprintf("exec_command %s tty=%v", c.mode, tty), func(b *testing.B) {
			b.SetBytes(size)
			args := fmt.Sprintf(`{"cmd":"head -c %d /dev/zero","timeout_ms":600000,"tty":%v}`, size, tty)
			for b.Loop() {
				res := r.Run(context.Background(), env, "exec_command", []byte(args))
				if res.IsError || !strings.Contains(res.Output, "Process exited with code 0") {
					b.Fatal(res.Output[:min(len(res.Output), 300)])
				}
			}
		})
	}
	// The floor: the same command writing to /dev/null in the sandbox,
	// its output never reaching grove.
	b.Run("floor: output to /dev/null", func(b *testing.B) {
		env := benchEnv(b, protocol.SandboxWorkspaceWrite)
		b.SetBytes(size)
		args := fmt.Sprintf(`{"cmd":"head -c %d /dev/zero >/dev/null","timeout_ms":600000}`, size)
		for b.Loop() {
			if res := r.Run(context.Background(), env, "exec_command", []byte(args)); res.IsError {
				b.Fatal(res.Output)
			}
		}
	})
}

// BenchmarkSessionsMemory holds 64 live sessions (sleep) and reports what
// grove holds for them: Go heap in use and this process's RSS growth.
func BenchmarkSessionsMemory(b *testing.B) {
	for b.Loop() {
		env := benchEnv(b, protocol.SandboxWorkspaceWrite)
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		rss0 := rssKB()
		for i := range MaxSessions {
			if _, err := StartShellSession(env, ShellSessionRequest{Command: fmt.Sprintf("echo up %d; exec sleep 1000", i), TTY: i%2 == 0}); err != nil {
				b.Fatal(err)
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapInuse-before.HeapInuse)/(1<<20), "heap-MB/64")
		b.ReportMetric(float64(rssKB()-rss0)/1024, "rss-MB/64")
		env.Sessions.Shutdown()
	}
}

func rssKB() int64 {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}
