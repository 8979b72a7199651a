// Command peers runs the same scenarios with grove and with peer coding
// CLIs (Codex, opencode) against one scripted, zero-latency
// OpenAI-compatible server (core/model/modeltest), alternating the tools
// run by run, and prints each one's median wall time and its ratio to
// grove's.
//
// The peers are installed from npm at pinned versions into -dir (default
// $XDG_CACHE_HOME/grove-peers). Scenarios:
//
//	seq20      one agent, 20 sequential shell commands (`true`), then an answer
//	fanout6x3  the root spawns 6 sub-agents, each runs 3 shell commands
//	fanout25   the same with 25 sub-agents × 1 command
//
// grove runs every scenario; opencode runs the fan-outs through its `task`
// sub-agent tool. Codex 0.169 (multi_agent feature on) offers spawn_agent
// only inside a Responses "namespace" tool, whose calls the shared
// scripted server cannot emit, so its fan-outs are reported as n/a.
// Everyone runs its default workspace-write style sandbox and never asks
// for approval.
//
// Run: go run ./bench/peers [-runs 5] [-peers grove,codex,opencode] [-scenarios seq20,fanout6x3,fanout25]
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/grovecli/grove/core/model/modeltest"
)

// Pinned peer versions.
const (
	codexPkg    = "@openai/codex@0.169.0"
	opencodePkg = "opencode-ai@1.18.33"
)

type scenario struct {
	name           string
	children, cmds int // children 0: the root runs cmds commands itself
}

var scenarios = []scenario{
	{"seq20", 0, 20},
	{"fanout6x3", 6, 3},
	{"fanout25", 25, 1},
}

func main() {
	runs := flag.Int("runs", 5, "runs per tool and scenario (the median is reported)")
	dir := flag.String("dir", defaultDir(), "where the peer CLIs are installed")
	peerList := flag.String("peers", "grove,codex,opencode", "tools to run")
	scenList := flag.String("scenarios", "seq20,fanout6x3,fanout25", "scenarios to run")
	verbose := flag.Bool("v", false, "show the tools' output when a run fails")
	flag.Parse()

	tmp, err := os.MkdirTemp("", "grove-peers-")
	check(err)
	defer os.RemoveAll(tmp)
	groveBin := filepath.Join(tmp, "grove")
	build := exec.Command("go", "build", "-o", groveBin, "./cmd/grove")
	build.Stderr = os.Stderr
	check(build.Run())
	wanted := strings.Split(*peerList, ",")
	if slices.Contains(wanted, "codex") || slices.Contains(wanted, "opencode") {
		check(install(*dir))
	}
	all := map[string]tool{
		"grove":    groveTool{bin: groveBin},
		"codex":    codexTool{bin: filepath.Join(*dir, "node_modules", ".bin", "codex")},
		"opencode": opencodeTool{bin: filepath.Join(*dir, "node_modules", ".bin", "opencode"), cache: filepath.Join(*dir, "opencode-cache")},
	}
	var tools []tool
	for _, n := range wanted {
		t, ok := all[n]
		if !ok {
			check(fmt.Errorf("unknown tool %q", n))
		}
		tools = append(tools, t)
	}
	fmt.Printf("peers: %s, %s; %d runs each, alternating; zero-latency scripted model\n", codexPkg, opencodePkg, *runs)
	for _, sc := range scenarios {
		if !slices.Contains(strings.Split(*scenList, ","), sc.name) {
			continue
		}
		walls, cpus := map[string][]float64{}, map[string][]float64{}
		failed := map[string]string{}
		// One warm-up run per tool (first-run caches, databases), not counted.
		for i := -1; i < *runs; i++ {
			for k := range tools {
				t := tools[(k+max(i, 0))%len(tools)] // rotate who goes first
				if failed[t.name()] != "" {
					continue
				}
				wall, cpu, err := runOnce(t, sc, tmp, *verbose)
				if err != nil {
					failed[t.name()] = err.Error()
					continue
				}
				if i >= 0 {
					walls[t.name()] = append(walls[t.name()], wall)
					cpus[t.name()] = append(cpus[t.name()], cpu)
				}
			}
		}
		fmt.Printf("%s (%s):\n", sc.name, describe(sc))
		base := 0.0
		if len(walls["grove"]) > 0 {
			base = median(walls["grove"])
		}
		for _, t := range tools {
			n := t.name()
			if msg := failed[n]; msg != "" {
				fmt.Printf("  %-9s failed: %s\n", n, msg)
				continue
			}
			m := median(walls[n])
			ratio := ""
			if base > 0 {
				ratio = fmt.Sprintf("  (%.2f× grove)", m/base)
			}
			// CPU: the tool's process and the children it waited for (a
			// busy machine inflates wall time, much less CPU time).
			fmt.Printf("  %-9s %8.0f ms median  [%s]%s  CPU %.0f ms median\n", n, m, spread(walls[n]), ratio, median(cpus[n]))
		}
	}
}

func describe(sc scenario) string {
	if sc.children == 0 {
		return fmt.Sprintf("one agent, %d sequential shell commands", sc.cmds)
	}
	return fmt.Sprintf("%d sub-agents × %d shell commands", sc.children, sc.cmds)
}

func defaultDir() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "grove-peers")
	}
	return filepath.Join(os.TempDir(), "grove-peers")
}

// install puts the pinned peers into dir with npm (a no-op when present).
func install(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	cmd := exec.Command("npm", "install", "--no-audit", "--no-fund", "--prefix", dir, codexPkg, opencodePkg)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("npm install %s %s: %w", codexPkg, opencodePkg, err)
	}
	return nil
}

// tool is one CLI under test.
type tool interface {
	name() string
	// command returns the process that runs prompt in work against url,
	// with its state under home.
	command(url, home, work, prompt string, sc scenario) (*exec.Cmd, error)
}

// runOnce returns the run's wall time and the CPU time of the tool's
// process tree (user+system of the process and the children it reaped),
// in milliseconds.
func runOnce(t tool, sc scenario, tmp string, verbose bool) (wall, cpu float64, err error) {
	home, err := os.MkdirTemp(tmp, t.name()+"-home-")
	if err != nil {
		return 0, 0, err
	}
	defer os.RemoveAll(home)
	work, err := os.MkdirTemp(tmp, t.name()+"-work-")
	if err != nil {
		return 0, 0, err
	}
	defer os.RemoveAll(work)
	srv := modeltest.Start()
	defer srv.Close()
	srv.SetModels([]string{"test-model"})
	sm := &scriptedModel{sc: sc}
	srv.Handle(sm.reply)
	prompt := fmt.Sprintf("BENCH-ROOT %s", sc.name)
	cmd, err := t.command(srv.URL(), home, work, prompt, sc)
	if err != nil {
		return 0, 0, err
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Stdin = nil
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, 0, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(3 * time.Minute):
		_ = cmd.Process.Kill()
		<-done
		err = fmt.Errorf("timed out")
	}
	wall = float64(time.Since(start).Microseconds()) / 1000
	if ps := cmd.ProcessState; ps != nil {
		cpu = float64((ps.UserTime() + ps.SystemTime()).Microseconds()) / 1000
	}
	sm.mu.Lock()
	unsupported := sm.unsupported
	sm.mu.Unlock()
	if unsupported != "" {
		return 0, 0, fmt.Errorf("n/a: %s", unsupported)
	}
	if err == nil && !sm.finished() {
		err = fmt.Errorf("exited before the scenario's final answer (%d commands ran)", sm.commandsRun())
	}
	if err == nil && sm.commandsRun() != max(sc.children, 1)*sc.cmds {
		err = fmt.Errorf("ran %d commands, want %d", sm.commandsRun(), max(sc.children, 1)*sc.cmds)
	}
	if err != nil {
		if verbose {
			fmt.Fprintf(os.Stderr, "--- %s %s output:\n%s\n", t.name(), sc.name, tail(out.String(), 4000))
		}
		return 0, 0, fmt.Errorf("%v; last output: %s", err, oneLine(tail(out.String(), 300)))
	}
	return wall, cpu, nil
}

type groveTool struct{ bin string }

func (groveTool) name() string { return "grove" }
func (g groveTool) command(url, home, work, prompt string, sc scenario) (*exec.Cmd, error) {
	cmd := exec.Command(g.bin, "exec", "-C", work,
		"-c", `model_provider="mock"`, "-c", `model_providers.mock.base_url="`+url+`"`, "-c", `model_providers.mock.wire_api="chat"`,
		"-c", fmt.Sprintf("agents.max_threads=%d", max(sc.children, 12)), "-m", "test-model", prompt)
	cmd.Env = append(os.Environ(), "GROVE_HOME="+home, "OPENAI_API_KEY=")
	return cmd, nil
}

type codexTool struct{ bin string }

func (codexTool) name() string { return "codex" }

// Codex quirks: a custom provider needs wire_api (the Responses API; the
// chat wire was removed), multi-agent tools are behind a feature flag,
// and max_threads defaults to 6.
func (c codexTool) command(url, home, work, prompt string, sc scenario) (*exec.Cmd, error) {
	cfg := fmt.Sprintf(`model = "test-model"
model_provider = "mock"
approval_policy = "never"
sandbox_mode = "workspace-write"
check_for_update_on_startup = false

[model_providers.mock]
name = "mock"
base_url = %q
wire_api = "responses"

[features]
multi_agent = true
multi_agent_v2 = false

[agents]
enabled = true
max_threads = %d

[analytics]
enabled = false
`, url, max(sc.children, 6))
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		return nil, err
	}
	cmd := exec.Command(c.bin, "exec", "--skip-git-repo-check", "-C", work, prompt)
	cmd.Env = append(os.Environ(), "CODEX_HOME="+home, "OPENAI_API_KEY=", "NO_COLOR=1")
	return cmd, nil
}

// opencodeTool keeps its cache and data across runs, as a user's install
// does (opencode installs provider packages into the cache on first use
// and migrates its database in the data dir); config and state are per run.
type opencodeTool struct{ bin, cache string }

func (opencodeTool) name() string { return "opencode" }

// opencode quirks: a custom OpenAI-compatible provider is declared in the
// config; its model-list fetch (models.dev), autoupdate, sharing, LSP
// downloads and default plugins are switched off so nothing waits on the
// network; permissions allow commands without asking.
func (o opencodeTool) command(url, home, work, prompt string, _ scenario) (*exec.Cmd, error) {
	cfg := map[string]any{
		"$schema":    "https://opencode.ai/config.json",
		"autoupdate": false,
		"share":      "disabled",
		"model":      "mock/test-model",
		"provider": map[string]any{"mock": map[string]any{
			"npm": "@ai-sdk/openai-compatible", "name": "mock",
			"options": map[string]any{"baseURL": url, "apiKey": "bench"},
			"models":  map[string]any{"test-model": map[string]any{"name": "test-model", "tool_call": true}},
		}},
		"permission": map[string]any{"bash": "allow", "edit": "allow", "webfetch": "deny", "doom_loop": "allow"},
	}
	b, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(o.bin, "run", "--model", "mock/test-model", prompt)
	cmd.Dir = work
	cmd.Env = append(os.Environ(),
		"OPENCODE_CONFIG_CONTENT="+string(b),
		"OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1",
		"OPENCODE_DISABLE_DEFAULT_PLUGINS=1", "OPENCODE_DISABLE_SHARE=1", "OPENCODE_DISABLE_CLAUDE_CODE=1",
		"HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, "config"), "XDG_DATA_HOME="+filepath.Join(o.cache, "data"),
		"XDG_CACHE_HOME="+o.cache, "XDG_STATE_HOME="+filepath.Join(home, "state"))
	return cmd, nil
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "peers:", err)
		os.Exit(1)
	}
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

func spread(xs []float64) string {
	s := slices.Clone(xs)
	slices.Sort(s)
	return fmt.Sprintf("%.0f–%.0f", s[0], s[len(s)-1])
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// scriptedModel answers every tool's requests from the transcript alone,
// whichever API shape (Chat Completions or Responses) and tool names the
// tool uses.
type scriptedModel struct {
	sc          scenario
	mu          sync.Mutex
	done        bool
	shell       int
	unsupported string
}

func (m *scriptedModel) finished() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.done
}

func (m *scriptedModel) commandsRun() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.shell
}

func (m *scriptedModel) reply(r modeltest.CapturedRequest) modeltest.Reply {
	tr := parseTranscript(r.Body)
	if os.Getenv("PEERS_DEBUG") != "" {
		names := make([]string, 0, len(tr.tools))
		for n := range tr.tools {
			names = append(names, n)
		}
		slices.Sort(names)
		fmt.Fprintf(os.Stderr, "request %s: tools %v, prompt %q, %d calls\n", r.Path, names, tr.prompt, len(tr.calls))
		if os.Getenv("PEERS_DEBUG") == "2" {
			b, _ := json.MarshalIndent(r.Body["tools"], "", " ")
			fmt.Fprintf(os.Stderr, "%s\n", b)
		}
	}
	text := func(s string) modeltest.Reply { return modeltest.Reply{Text: s, ChunkSize: 64} }
	calls := func(cs ...modeltest.ToolCall) modeltest.Reply { return modeltest.Reply{ToolCalls: cs, ChunkSize: 64} }
	switch {
	case len(tr.tools) == 0:
		// A side request without tools (opencode asks for a title).
		return text("bench")
	case strings.Contains(tr.prompt, "BENCH-CHILD"):
		if len(tr.calls) < m.sc.cmds {
			return calls(m.shellCall(tr, len(tr.calls)))
		}
		return text("child done")
	case !strings.Contains(tr.prompt, "BENCH-ROOT"):
		// A tool's side request (titles, summaries): answer briefly.
		return text("bench")
	case m.sc.children == 0:
		if len(tr.calls) < m.sc.cmds {
			return calls(m.shellCall(tr, len(tr.calls)))
		}
		return m.finish()
	}
	if len(tr.calls) == 0 && !tr.has("spawn_agent") && !tr.has("task") {
		// Codex 0.169 offers its agent tools only inside a Responses
		// "namespace" tool (multi_agent_v1 / collaboration), whose calls
		// the shared scripted server cannot emit.
		m.mu.Lock()
		m.unsupported = "no top-level spawn_agent or task tool (agent tools only inside a namespace tool)"
		m.mu.Unlock()
		return text("cannot fan out")
	}
	if len(tr.calls) == 0 {
		var cs []modeltest.ToolCall
		for i := range m.sc.children {
			msg := fmt.Sprintf("BENCH-CHILD %d: run %d commands", i, m.sc.cmds)
			if tr.has("task") && !tr.has("spawn_agent") {
				args, _ := json.Marshal(map[string]string{"description": "bench child", "prompt": msg, "subagent_type": "general"})
				cs = append(cs, modeltest.ToolCall{ID: fmt.Sprintf("spawn%d", i), Name: "task", Arguments: string(args)})
				continue
			}
			args, _ := json.Marshal(map[string]string{"message": msg})
			cs = append(cs, modeltest.ToolCall{ID: fmt.Sprintf("spawn%d", i), Name: "spawn_agent", Arguments: string(args)})
		}
		return calls(cs...)
	}
	// spawn_agent returns at once: wait until every child is final.
	// (opencode's task returns when its sub-agent is done.)
	var ids []string
	final := map[string]bool{}
	for _, c := range tr.calls {
		out := tr.outputs[c.id]
		switch c.name {
		case "spawn_agent":
			var sp struct {
				AgentID string `json:"agent_id"`
			}
			if json.Unmarshal([]byte(out), &sp) == nil && sp.AgentID != "" {
				ids = append(ids, sp.AgentID)
			}
		case "wait":
			var w struct {
				Status map[string]json.RawMessage `json:"status"`
			}
			if json.Unmarshal([]byte(out), &w) == nil {
				for id, st := range w.Status {
					var s string
					if json.Unmarshal(st, &s) != nil || s == "shutdown" || s == "not_found" {
						final[id] = true // {"completed": …} / {"errored": …} or a final string
					}
				}
			}
		}
	}
	var pending []string
	for _, id := range ids {
		if !final[id] {
			pending = append(pending, id)
		}
	}
	if len(pending) > 0 {
		args, _ := json.Marshal(map[string]any{"ids": pending})
		return calls(modeltest.ToolCall{ID: fmt.Sprintf("wait%d", len(tr.calls)), Name: "wait", Arguments: string(args)})
	}
	return m.finish()
}

func (m *scriptedModel) finish() modeltest.Reply {
	m.mu.Lock()
	m.done = true
	m.mu.Unlock()
	return modeltest.Reply{Text: "all done", ChunkSize: 64}
}

// shellCall runs `true` with whichever shell tool the client offers.
func (m *scriptedModel) shellCall(tr transcript, n int) modeltest.ToolCall {
	m.mu.Lock()
	m.shell++
	m.mu.Unlock()
	id := fmt.Sprintf("cmd%d", n)
	var args any
	name := "exec_command"
	switch {
	case tr.has("exec_command"):
		args = map[string]any{"cmd": "true"}
	case tr.has("shell_command"):
		name, args = "shell_command", map[string]any{"command": "true"}
	case tr.has("shell"):
		name, args = "shell", map[string]any{"command": []string{"bash", "-lc", "true"}}
	case tr.has("bash"):
		name, args = "bash", map[string]any{"command": "true", "description": "Run true"}
	default:
		args = map[string]any{"cmd": "true"}
	}
	b, _ := json.Marshal(args)
	return modeltest.ToolCall{ID: id, Name: name, Arguments: string(b)}
}

type call struct{ id, name string }

// transcript is what the scripted model needs of a request: the tools it
// offers, the last user prompt, and the calls and outputs since it.
type transcript struct {
	tools   map[string]bool
	prompt  string
	calls   []call
	outputs map[string]string
}

func (t transcript) has(tool string) bool { return t.tools[tool] }

func parseTranscript(body map[string]any) transcript {
	tr := transcript{tools: map[string]bool{}, outputs: map[string]string{}}
	tools, _ := body["tools"].([]any)
	for _, t := range tools {
		tm, _ := t.(map[string]any)
		if fn, ok := tm["function"].(map[string]any); ok {
			if n, _ := fn["name"].(string); n != "" {
				tr.tools[n] = true
			}
		}
		if n, _ := tm["name"].(string); n != "" {
			tr.tools[n] = true
		}
	}
	userText := func(content any) string {
		switch c := content.(type) {
		case string:
			return c
		case []any:
			var b strings.Builder
			for _, p := range c {
				pm, _ := p.(map[string]any)
				if s, _ := pm["text"].(string); s != "" {
					b.WriteString(s)
				}
			}
			return b.String()
		}
		return ""
	}
	reset := func(prompt string) {
		tr.prompt, tr.calls, tr.outputs = prompt, nil, map[string]string{}
	}
	if msgs, ok := body["messages"].([]any); ok { // Chat Completions
		for _, m := range msgs {
			mm, _ := m.(map[string]any)
			switch mm["role"] {
			case "user":
				if t := userText(mm["content"]); strings.Contains(t, "BENCH-") {
					reset(t)
				}
			case "assistant":
				tcs, _ := mm["tool_calls"].([]any)
				for _, tc := range tcs {
					tcm, _ := tc.(map[string]any)
					fn, _ := tcm["function"].(map[string]any)
					id, _ := tcm["id"].(string)
					name, _ := fn["name"].(string)
					tr.calls = append(tr.calls, call{id, name})
				}
			case "tool":
				id, _ := mm["tool_call_id"].(string)
				tr.outputs[id] = userText(mm["content"])
			}
		}
		return tr
	}
	input, _ := body["input"].([]any) // Responses
	for _, it := range input {
		im, _ := it.(map[string]any)
		switch im["type"] {
		case "message", nil:
			if im["role"] == "user" {
				if t := userText(im["content"]); strings.Contains(t, "BENCH-") {
					reset(t)
				}
			}
		case "function_call", "custom_tool_call":
			id, _ := im["call_id"].(string)
			name, _ := im["name"].(string)
			tr.calls = append(tr.calls, call{id, name})
		case "function_call_output", "custom_tool_call_output":
			id, _ := im["call_id"].(string)
			tr.outputs[id] = userText(im["output"])
		}
	}
	return tr
}
