// Command bench measures grove end to end against an in-process,
// zero-latency mock model (modeltest): the real binary, real tools, real
// sandbox. It prints the numbers the project tracks:
//
//	harness turnaround per tool call (tool result → next model request)
//	peak RSS for one agent and for a root with 6 children
//	fan-out wall time: 6 children × 3 commands
//	startup to first model request
//	resume picker first page with 10 000 sessions
//	package init time and `grove --help`
//	scale: 6 → 25 → 100 children × 3 CPU-burning commands (wall against
//	the commands' own CPU, peak RSS)
//
// Run: go run ./bench [-runs N] [-scale=false]
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/grovecli/grove/core/model/modeltest"
	"github.com/grovecli/grove/rollout"
	"github.com/grovecli/grove/rollout/rollouttest"
)

func main() {
	runs := flag.Int("runs", 5, "repetitions per measurement (the median is reported)")
	scale := flag.Bool("scale", true, "also run the 6 → 25 → 100 children scale runs")
	flag.Parse()
	tmp, err := os.MkdirTemp("", "grove-bench-")
	check(err)
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "grove")
	build := exec.Command("go", "build", "-o", bin, "./cmd/grove")
	build.Stderr = os.Stderr
	check(build.Run())

	var turn, start, rss1, rss7, fan, execSandboxed, execFull []float64
	for i := 0; i < *runs; i++ {
		// exec_command `true` turnaround, sandboxed and not, alternately.
		execSandboxed = append(execSandboxed, runToolLoop(bin, tmp, 20, "exec_command", `{"cmd":"true"}`).roundMS)
		execFull = append(execFull, runToolLoop(bin, tmp, 20, "exec_command", `{"cmd":"true"}`, "-s", "danger-full-access").roundMS)
		r := runLoop(bin, tmp, 40)
		turn = append(turn, r.turnaroundMS)
		start = append(start, r.startupMS)
		rss1 = append(rss1, r.rssMB)
		f := runFanOut(bin, tmp, 6, 3, trueCmd)
		fan = append(fan, f.wallMS)
		rss7 = append(rss7, f.rssMB)
	}
	pickerList, pickerCLI := picker(bin, tmp, *runs)
	helpMS, initMS := helpAndInit(bin, *runs*4)
	fmt.Printf("grove bench (median of %d runs, zero-latency mock model, sandbox workspace-write)\n", *runs)
	fmt.Printf("  package init (GODEBUG=inittrace=1)  %7.2f ms   (target ≤ 3 ms)\n", initMS)
	fmt.Printf("  `grove --help` (whole process)      %7.2f ms   (target ≤ 8 ms)\n", helpMS)
	fmt.Printf("  harness turnaround per tool call   %7.2f ms   (list_dir; target ≤ 25 ms)\n", median(turn))
	fmt.Printf("  exec_command `true` per call, sandboxed %4.2f ms  (request to request; %.2f× unsandboxed, target ≤ 1.5×)\n", median(execSandboxed), median(execSandboxed)/median(execFull))
	fmt.Printf("  exec_command `true` per call, unsandboxed %4.2f ms (danger-full-access)\n", median(execFull))
	fmt.Printf("  startup to first model request      %7.1f ms   (target ≤ 15 ms)\n", median(start))
	fmt.Printf("  peak RSS, one agent                 %7.1f MB   (target ≤ 50 MB)\n", median(rss1))
	fmt.Printf("  peak RSS, root + 6 children         %7.1f MB   (target ≤ 80 MB)\n", median(rss7))
	fmt.Printf("  fan-out 6 children × 3 commands     %7.0f ms   (target ≤ 700 ms)\n", median(fan))
	fmt.Printf("  picker first page, 10 000 sessions  %7.2f ms   (index read; target < 50 ms)\n", pickerList)
	fmt.Printf("  `grove sessions list`, 10 000       %7.1f ms   (whole process)\n", pickerCLI)
	if *scale {
		cores := runtime.NumCPU()
		fmt.Printf("scale: n children × 3 CPU-burning commands each (target: wall ≤ 1.5 × command CPU ÷ cores, peak RSS < 60 MB at 100)\n")
		for _, n := range []int{6, 25, 100} {
			var walls, rsss, cpus, totals, bases []float64
			for range max(*runs/2, 1) {
				// Alternate with the same commands run without grove, so
				// both see the same load from whatever else the machine runs.
				r := runFanOut(bin, tmp, n, 3, busyCmd)
				walls, rsss, cpus, totals = append(walls, r.wallMS), append(rsss, r.rssMB), append(cpus, r.cmdCPUMS), append(totals, r.totalCPUMS)
				bases = append(bases, baselineChains(n, 3, busyCmd))
			}
			wall, cpu := median(walls), median(cpus)
			fmt.Printf("  %3d children: wall %6.0f ms = %4.2f × (command CPU %6.0f ms ÷ %d cores); bare commands, same parallelism: %6.0f ms (grove %4.2f×); grove+commands CPU %6.0f ms; peak RSS %5.1f MB\n",
				n, wall, wall/(cpu/float64(cores)), cpu, cores, median(bases), wall/median(bases), median(totals), median(rsss))
		}
	}
}

// baselineChains runs the scale scenario's commands without grove: n
// chains in parallel, each running command cmds times in a row with bash.
func baselineChains(n, cmds int, command string) float64 {
	start := time.Now()
	errs := make(chan error, n)
	for range n {
		go func() {
			for range cmds {
				c := exec.Command("bash", "-c", command)
				c.Stdout = io.Discard
				if err := c.Run(); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range n {
		check(<-errs)
	}
	return float64(time.Since(start).Microseconds()) / 1000
}

// helpAndInit measures `grove --help` (whole process, median) and the sum
// of package init times GODEBUG=inittrace=1 reports for it (median).
func helpAndInit(bin string, runs int) (helpMS, initMS float64) {
	var helps, inits []float64
	for range runs {
		cmd := exec.Command(bin, "--help")
		cmd.Stdout = io.Discard
		t := time.Now()
		check(cmd.Run())
		helps = append(helps, float64(time.Since(t).Microseconds())/1000)

		cmd = exec.Command(bin, "--help")
		cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		check(cmd.Run())
		total := 0.0
		for _, line := range strings.Split(stderr.String(), "\n") {
			// init pkg @0.1 ms, 0.05 ms clock, 0 bytes, 0 allocs
			f := strings.Fields(line)
			if len(f) > 6 && f[0] == "init" && f[6] == "clock," {
				ms, err := strconv.ParseFloat(f[4], 64)
				check(err)
				total += ms
			}
		}
		inits = append(inits, total)
	}
	return median(helps), median(inits)
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// roundsSinceUser counts tool outputs after the last user message of a
// chat request, and tells whether it comes from a sub-agent.
func inspect(body map[string]any) (rounds int, sub bool) {
	msgs, _ := body["messages"].([]any)
	last := 0
	for i, m := range msgs {
		mm, _ := m.(map[string]any)
		switch mm["role"] {
		case "system":
			if s, _ := mm["content"].(string); strings.Contains(s, "you are sub-agent") {
				sub = true
			}
		case "user":
			last = i
		}
	}
	for _, m := range msgs[last:] {
		if mm, _ := m.(map[string]any); mm["role"] == "assistant" && mm["tool_calls"] != nil {
			rounds++
		}
	}
	return rounds, sub
}

type loopResult struct {
	turnaroundMS, startupMS, rssMB float64
	// roundMS is model request to model request: the reply, the tool run
	// and the harness, for one tool call.
	roundMS float64
}

// run starts grove exec --json against the server and returns its events
// (as raw maps), wall time, peak RSS and start time.
func run(bin, tmp string, s *modeltest.Server, prompt string, extra ...string) ([]map[string]any, time.Duration, float64, time.Time) {
	evs, wall, rss, begin, _ := runCPU(bin, tmp, s, prompt, extra...)
	return evs, wall, rss, begin
}

// runCPU is run that also returns the CPU time of grove and every process
// it waited for (sandbox helpers, shells, commands).
func runCPU(bin, tmp string, s *modeltest.Server, prompt string, extra ...string) ([]map[string]any, time.Duration, float64, time.Time, time.Duration) {
	home, err := os.MkdirTemp(tmp, "home-")
	check(err)
	work, err := os.MkdirTemp(tmp, "work-")
	check(err)
	args := []string{"exec", "--json", "-C", work, "-c", "model_provider=\"mock\"", "-c", "model_providers.mock.base_url=\"" + s.URL() + "\"", "-c", "model_providers.mock.wire_api=\"chat\"", "-m", "test-model"}
	args = append(append(args, extra...), prompt)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "GROVE_HOME="+home, "OPENAI_API_KEY=")
	if d := os.Getenv("BENCH_GROVE_GODEBUG"); d != "" {
		// Runtime traces for grove only (gctrace=1 to see its heap).
		cmd.Env = append(cmd.Env, "GODEBUG="+d)
	}
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = os.Stderr
	begin := time.Now()
	check(cmd.Run())
	wall := time.Since(begin)
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	var evs []map[string]any
	sc := bufio.NewScanner(&out)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var ev map[string]any
		if json.Unmarshal(sc.Bytes(), &ev) == nil {
			evs = append(evs, ev)
		}
	}
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return evs, wall, float64(ru.Maxrss) / 1024, begin, cpu
}

// runLoop: one agent, n rounds of a cheap tool (list_dir), then an answer.
func runLoop(bin, tmp string, n int) loopResult {
	return runToolLoop(bin, tmp, n, "list_dir", `{"path":"."}`)
}

// runToolLoop: one agent, n rounds of tool with args, then an answer;
// extra are grove flags (e.g. the sandbox mode).
func runToolLoop(bin, tmp string, n int, tool, args string, extra ...string) loopResult {
	s := modeltest.Start()
	defer s.Close()
	s.Handle(func(r modeltest.CapturedRequest) modeltest.Reply {
		rounds, _ := inspect(r.Body)
		if rounds < n {
			return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: fmt.Sprintf("c%d", rounds), Name: tool, Arguments: args}}, ChunkSize: 64}
		}
		return modeltest.Reply{Text: "done", ChunkSize: 64}
	})
	evs, _, rss, begin := run(bin, tmp, s, "loop", extra...)
	reqs := s.Requests()
	var ends []time.Time
	for _, ev := range evs {
		if ev["type"] == "tool_call_end" {
			ts, _ := time.Parse(time.RFC3339Nano, ev["timestamp"].(string))
			ends = append(ends, ts)
		}
	}
	if len(ends) != n || len(reqs) != n+1 {
		check(fmt.Errorf("loop: %d tool ends, %d requests", len(ends), len(reqs)))
	}
	var total time.Duration
	for i, end := range ends {
		total += reqs[i+1].Received.Sub(end)
	}
	return loopResult{
		roundMS:      float64(reqs[n].Received.Sub(reqs[0].Received).Microseconds()) / float64(n) / 1000,
		turnaroundMS: float64(total.Microseconds()) / float64(n) / 1000,
		startupMS:    float64(reqs[0].Received.Sub(begin).Microseconds()) / 1000,
		rssMB:        rss,
	}
}

type fanResult struct{ wallMS, rssMB, cmdCPUMS, totalCPUMS float64 }

// trueCmd is the fan-out's command: as cheap as a command gets, so the
// wall time is grove's own cost.
const trueCmd = "true"

// busyCmd burns a little CPU in the shell and reports it with the `times`
// builtin (shell and children, user and system), so the scale run knows
// the total CPU its commands needed.
const busyCmd = `i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; times`

// runFanOut: the root spawns n children; each runs cmds exec_command calls
// of command; the root waits for all and answers.
func runFanOut(bin, tmp string, n, cmds int, command string) fanResult {
	s := modeltest.Start()
	defer s.Close()
	cmdArgs, _ := json.Marshal(map[string]string{"cmd": command})
	s.Handle(func(r modeltest.CapturedRequest) modeltest.Reply {
		rounds, sub := inspect(r.Body)
		if sub {
			if rounds < cmds {
				return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: fmt.Sprintf("x%d", rounds), Name: "exec_command", Arguments: string(cmdArgs)}}, ChunkSize: 64}
			}
			return modeltest.Reply{Text: "child done", ChunkSize: 64}
		}
		// Root: spawn all, then wait until every child is final.
		msgs, _ := r.Body["messages"].([]any)
		var ids []string
		final := map[string]bool{}
		for _, m := range msgs {
			mm, _ := m.(map[string]any)
			if mm["role"] != "tool" {
				continue
			}
			content, _ := mm["content"].(string)
			var sp struct {
				AgentID string `json:"agent_id"`
			}
			if json.Unmarshal([]byte(content), &sp) == nil && sp.AgentID != "" {
				ids = append(ids, sp.AgentID)
			}
			var w struct {
				Status map[string]any `json:"status"`
			}
			if json.Unmarshal([]byte(content), &w) == nil {
				for id := range w.Status {
					final[id] = true
				}
			}
		}
		if rounds == 0 {
			var calls []modeltest.ToolCall
			for i := 0; i < n; i++ {
				calls = append(calls, modeltest.ToolCall{ID: fmt.Sprintf("s%d", i), Name: "spawn_agent", Arguments: `{"message":"run three commands"}`})
			}
			return modeltest.Reply{ToolCalls: calls, ChunkSize: 64}
		}
		var pending []string
		for _, id := range ids {
			if !final[id] {
				pending = append(pending, id)
			}
		}
		if len(pending) > 0 {
			b, _ := json.Marshal(pending)
			return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: fmt.Sprintf("w%d", rounds), Name: "wait", Arguments: `{"ids":` + string(b) + `}`}}, ChunkSize: 64}
		}
		return modeltest.Reply{Text: "all done", ChunkSize: 64}
	})
	evs, wall, rss, _, totalCPU := runCPU(bin, tmp, s, "fan out", "-c", fmt.Sprintf("agents.max_threads=%d", max(n, 12)))
	execs := 0
	var cpu time.Duration
	for _, ev := range evs {
		if ev["type"] == "tool_call_end" {
			if tool, _ := ev["tool"].(map[string]any); tool["name"] == "exec_command" {
				execs++
				out, _ := tool["output"].(string)
				if command == busyCmd {
					d, err := timesCPU(out)
					check(err)
					cpu += d
				}
			}
		}
	}
	if execs != n*cmds {
		check(fmt.Errorf("fan-out ran %d commands, want %d", execs, n*cmds))
	}
	return fanResult{wallMS: float64(wall.Milliseconds()), rssMB: rss, cmdCPUMS: float64(cpu.Microseconds()) / 1000, totalCPUMS: float64(totalCPU.Microseconds()) / 1000}
}

// timesCPU sums the four times printed by bash's `times` builtin
// ("0m0.052s 0m0.004s" for the shell, then for its children).
func timesCPU(out string) (time.Duration, error) {
	var total time.Duration
	n := 0
	for _, f := range strings.Fields(out) {
		m, sec, ok := strings.Cut(strings.TrimSuffix(f, "s"), "m")
		if !ok || !strings.HasSuffix(f, "s") {
			continue
		}
		d, err := time.ParseDuration(m + "m" + sec + "s")
		if err != nil {
			continue
		}
		total += d
		n++
	}
	if n != 4 {
		return 0, fmt.Errorf("command output has %d times, want 4: %q", n, out)
	}
	return total, nil
}

// picker measures the picker's first page (index read) and the whole
// `grove sessions list` process with 10 000 sessions.
func picker(bin, tmp string, runs int) (float64, float64) {
	home := filepath.Join(tmp, "picker-home")
	check(rollouttest.GenerateIndex(home, 10_000))
	var lists, clis []float64
	for i := 0; i < runs; i++ {
		t := time.Now()
		entries, _, err := rollout.ListSessions(home, 0, 100)
		check(err)
		if len(entries) != 100 {
			check(fmt.Errorf("picker page has %d entries", len(entries)))
		}
		lists = append(lists, float64(time.Since(t).Microseconds())/1000)
		cmd := exec.Command(bin, "sessions", "list", "-n", "50")
		cmd.Env = append(os.Environ(), "GROVE_HOME="+home)
		t = time.Now()
		out, err := cmd.Output()
		check(err)
		clis = append(clis, float64(time.Since(t).Microseconds())/1000)
		if !strings.Contains(string(out), "session 9999") {
			check(fmt.Errorf("sessions list does not start with the newest session"))
		}
	}
	return median(lists), median(clis)
}
