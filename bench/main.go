// Command bench measures grove end to end against an in-process,
// zero-latency mock model (modeltest): the real binary, real tools, real
// sandbox. It prints the numbers the project tracks:
//
//	harness turnaround per tool call (tool result → next model request)
//	peak RSS for one agent and for a root with 6 children
//	fan-out wall time: 6 children × 3 commands
//	startup to first model request
//	resume picker first page with 10 000 sessions
//
// Run: go run ./bench [-runs N]
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/grovecli/grove/core/model/modeltest"
	"github.com/grovecli/grove/rollout"
	"github.com/grovecli/grove/rollout/rollouttest"
)

func main() {
	runs := flag.Int("runs", 5, "repetitions per measurement (the median is reported)")
	flag.Parse()
	tmp, err := os.MkdirTemp("", "grove-bench-")
	check(err)
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "grove")
	build := exec.Command("go", "build", "-o", bin, "./cmd/grove")
	build.Stderr = os.Stderr
	check(build.Run())

	var turn, start, rss1, rss7, fan []float64
	for i := 0; i < *runs; i++ {
		r := runLoop(bin, tmp, 40)
		turn = append(turn, r.turnaroundMS)
		start = append(start, r.startupMS)
		rss1 = append(rss1, r.rssMB)
		f := runFanOut(bin, tmp, 6, 3)
		fan = append(fan, f.wallMS)
		rss7 = append(rss7, f.rssMB)
	}
	pickerList, pickerCLI := picker(bin, tmp, *runs)
	fmt.Printf("grove bench (median of %d runs, zero-latency mock model, sandbox workspace-write)\n", *runs)
	fmt.Printf("  harness turnaround per tool call   %7.2f ms   (target ≤ 25 ms)\n", median(turn))
	fmt.Printf("  startup to first model request      %7.1f ms   (target ≤ 100 ms)\n", median(start))
	fmt.Printf("  peak RSS, one agent                 %7.1f MB   (target ≤ 50 MB)\n", median(rss1))
	fmt.Printf("  peak RSS, root + 6 children         %7.1f MB   (target ≤ 80 MB)\n", median(rss7))
	fmt.Printf("  fan-out 6 children × 3 commands     %7.0f ms   (target ≤ 700 ms)\n", median(fan))
	fmt.Printf("  picker first page, 10 000 sessions  %7.2f ms   (index read; target < 50 ms)\n", pickerList)
	fmt.Printf("  `grove sessions list`, 10 000       %7.1f ms   (whole process)\n", pickerCLI)
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
}

// run starts grove exec --json against the server and returns its events
// (as raw maps), wall time, peak RSS and start time.
func run(bin, tmp string, s *modeltest.Server, prompt string) ([]map[string]any, time.Duration, float64, time.Time) {
	home, err := os.MkdirTemp(tmp, "home-")
	check(err)
	work, err := os.MkdirTemp(tmp, "work-")
	check(err)
	cmd := exec.Command(bin, "exec", "--json", "-C", work, "-c", "model_provider=\"mock\"", "-c", "model_providers.mock.base_url=\""+s.URL()+"\"", "-c", "model_providers.mock.wire_api=\"chat\"", "-m", "test-model", prompt)
	cmd.Env = append(os.Environ(), "GROVE_HOME="+home, "OPENAI_API_KEY=")
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
	return evs, wall, float64(ru.Maxrss) / 1024, begin
}

// runLoop: one agent, n rounds of a cheap tool (read_file), then an answer.
func runLoop(bin, tmp string, n int) loopResult {
	s := modeltest.Start()
	defer s.Close()
	s.Handle(func(r modeltest.CapturedRequest) modeltest.Reply {
		rounds, _ := inspect(r.Body)
		if rounds < n {
			return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: fmt.Sprintf("c%d", rounds), Name: "list_dir", Arguments: `{"path":"."}`}}, ChunkSize: 64}
		}
		return modeltest.Reply{Text: "done", ChunkSize: 64}
	})
	evs, _, rss, begin := run(bin, tmp, s, "loop")
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
		turnaroundMS: float64(total.Microseconds()) / float64(n) / 1000,
		startupMS:    float64(reqs[0].Received.Sub(begin).Microseconds()) / 1000,
		rssMB:        rss,
	}
}

type fanResult struct{ wallMS, rssMB float64 }

// runFanOut: the root spawns n children; each runs cmds exec_command calls;
// the root waits for all and answers.
func runFanOut(bin, tmp string, n, cmds int) fanResult {
	s := modeltest.Start()
	defer s.Close()
	s.Handle(func(r modeltest.CapturedRequest) modeltest.Reply {
		rounds, sub := inspect(r.Body)
		if sub {
			if rounds < cmds {
				return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: fmt.Sprintf("x%d", rounds), Name: "exec_command", Arguments: `{"cmd":"true"}`}}, ChunkSize: 64}
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
	evs, wall, rss, _ := run(bin, tmp, s, "fan out")
	execs := 0
	for _, ev := range evs {
		if ev["type"] == "tool_call_end" {
			if tool, _ := ev["tool"].(map[string]any); tool["name"] == "exec_command" {
				execs++
			}
		}
	}
	if execs != n*cmds {
		check(fmt.Errorf("fan-out ran %d commands, want %d", execs, n*cmds))
	}
	return fanResult{wallMS: float64(wall.Milliseconds()), rssMB: rss}
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
