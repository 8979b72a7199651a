package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/grovecli/grove/core/mcp"
	"github.com/grovecli/grove/core/model/modeltest"
	"github.com/grovecli/grove/protocol"
)

// everythingDir installs (once, into a cache dir) the MCP reference server
// from npm; the test skips when Node.js or the install is unavailable.
func everythingDir(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("MCP reference server from npm: skipped with -short")
	}
	for _, bin := range []string{"node", "npm", "npx"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("MCP reference server from npm: %s not found (install Node.js to run this test)", bin)
		}
	}
	dir := os.Getenv("GROVE_MCP_NPM_DIR")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			t.Skipf("no cache dir: %v", err)
		}
		dir = filepath.Join(cache, "grove-test-mcp-npm")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", ".bin", "mcp-server-everything")); err == nil {
		return dir
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "npm", "install", "--no-audit", "--no-fund", "--silent", "--prefix", dir,
		"@modelcontextprotocol/server-everything", "@modelcontextprotocol/server-filesystem").CombinedOutput(); err != nil {
		t.Skipf("MCP reference server from npm: npm install failed (offline?): %v\n%s", err, out)
	}
	return dir
}

// TestExecSubAgentsUseMCPToolsByTemplate: in a scripted grove exec run the
// root spawns two sub-agents; the one whose template allows
// mcp__everything__echo calls it and gets "Echo: …" back, its sibling whose
// template does not is refused.
func TestExecSubAgentsUseMCPToolsByTemplate(t *testing.T) {
	npm := everythingDir(t)
	noProviderEnv(t)
	home := t.TempDir()
	cfg := fmt.Sprintf("[mcp_servers.everything]\ncommand = \"npx\"\nargs = [\"-y\", \"@modelcontextprotocol/server-everything\", \"stdio\"]\ncwd = %q\nstartup_timeout_sec = 60\n", npm)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	agents := filepath.Join(work, ".grove", "agents")
	_ = os.MkdirAll(filepath.Join(work, ".git"), 0o755)
	_ = os.MkdirAll(agents, 0o755)
	_ = os.WriteFile(filepath.Join(agents, "echoer.md"), []byte("---\ndescription: Uses the echo MCP tool.\nallow_list:\n  - mcp__everything__echo\n---\nROLE-ECHOER\n"), 0o644)
	_ = os.WriteFile(filepath.Join(agents, "plain.md"), []byte("---\ndescription: Reads files only.\nallow_list:\n  - read_file\n---\nROLE-PLAIN\n"), 0o644)

	var mu sync.Mutex
	offered := map[string][]string{} // role -> tool names in its requests
	s := modeltest.NewServer(t)
	s.Handle(func(r modeltest.CapturedRequest) modeltest.Reply {
		msgs := r.Messages()
		first, _ := msgs[0].(map[string]any)
		last, _ := msgs[len(msgs)-1].(map[string]any)
		system := fmt.Sprint(first["content"])
		role := "root"
		switch {
		case strings.Contains(system, "ROLE-ECHOER"):
			role = "echoer"
		case strings.Contains(system, "ROLE-PLAIN"):
			role = "plain"
		}
		names := r.ToolNames()
		mu.Lock()
		offered[role] = names
		mu.Unlock()
		if role != "root" {
			if last["role"] == "tool" {
				return modeltest.Reply{Text: role + " got: " + fmt.Sprint(last["content"])}
			}
			return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "e-" + role, Name: "mcp__everything__echo", Arguments: `{"message":"from ` + role + `"}`}}}
		}
		if last["role"] != "tool" {
			return modeltest.Reply{ToolCalls: []modeltest.ToolCall{
				{ID: "s1", Name: "spawn_agent", Arguments: `{"message":"call echo","agent_type":"echoer"}`},
				{ID: "s2", Name: "spawn_agent", Arguments: `{"message":"call echo","agent_type":"plain"}`},
			}}
		}
		// Spawn results give the ids; wait (again) until both are final.
		var ids []string
		done := map[string]bool{}
		for _, m := range msgs {
			mm, _ := m.(map[string]any)
			if mm["role"] != "tool" {
				continue
			}
			content := fmt.Sprint(mm["content"])
			switch id := fmt.Sprint(mm["tool_call_id"]); {
			case id == "s1" || id == "s2":
				var out struct {
					AgentID string `json:"agent_id"`
				}
				if json.Unmarshal([]byte(content), &out) == nil && out.AgentID != "" {
					ids = append(ids, out.AgentID)
				}
			case strings.HasPrefix(id, "w"):
				var out struct {
					Status map[string]any `json:"status"`
				}
				_ = json.Unmarshal([]byte(content), &out)
				for k := range out.Status {
					done[k] = true
				}
			}
		}
		var pending []string
		for _, id := range ids {
			if !done[id] {
				pending = append(pending, id)
			}
		}
		if len(pending) == 0 {
			return modeltest.Reply{Text: "both children finished"}
		}
		b, _ := json.Marshal(map[string]any{"ids": pending, "timeout_ms": 120000})
		return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: fmt.Sprintf("w%d", len(msgs)), Name: "wait", Arguments: string(b)}}}
	})
	t.Setenv("OPENAI_BASE_URL", s.URL())
	t.Setenv("OPENAI_API_KEY", "sk-test")
	out, errOut, err := runCLI(t, home, "", "exec", "--json=grove", "--cd", work, "-m", "test-model", "go")
	if err != nil {
		t.Fatalf("exec: %v\nstderr:\n%s\nstdout:\n%s", err, errOut, out)
	}
	var echoOK, refused bool
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var ev protocol.Event
		if json.Unmarshal([]byte(line), &ev) != nil || ev.Type != protocol.EventToolCallEnd || ev.Tool.Name != "mcp__everything__echo" {
			continue
		}
		switch {
		case !ev.Tool.IsError && ev.Tool.Output == "Echo: from echoer":
			echoOK = true
		case ev.Tool.IsError && strings.Contains(ev.Tool.Output, "not available to this agent"):
			refused = true
		default:
			t.Errorf("unexpected echo result: %+v", ev.Tool)
		}
	}
	if !echoOK || !refused {
		t.Fatalf("echoer got Echo: %v, plain refused: %v\nstdout:\n%s\nstderr:\n%s", echoOK, refused, out, errOut)
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(offered["echoer"], ",") != "mcp__everything__echo" {
		t.Errorf("echoer was offered %v", offered["echoer"])
	}
	if strings.Contains(strings.Join(offered["plain"], ","), "mcp__") {
		t.Errorf("plain was offered %v", offered["plain"])
	}
	if !strings.Contains(strings.Join(offered["root"], ","), "mcp__everything__get-sum") {
		t.Errorf("the root (no policy) was not offered the server's tools: %v", offered["root"])
	}
}

func TestMCPListAddRemove(t *testing.T) {
	noProviderEnv(t)
	home := t.TempDir()
	work := t.TempDir()
	_ = os.MkdirAll(filepath.Join(work, ".git"), 0o755)
	_ = os.WriteFile(filepath.Join(work, ".mcp.json"), []byte(`{"mcpServers":{"proj":{"command":"proj-server","env":{"TOKEN":"secret-value"}}}}`), 0o644)
	out, _, err := runCLI(t, home, "", "mcp", "add", "everything", "--env", "A=1", "--", "npx", "-y", "@modelcontextprotocol/server-everything")
	if err != nil || !strings.Contains(out, "added MCP server everything") {
		t.Fatalf("add: %v %q", err, out)
	}
	if _, _, err := runCLI(t, home, "", "mcp", "add", "docs", "--url", "https://example.com/mcp", "--bearer-token-env-var", "DOCS_TOKEN"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCLI(t, home, "", "mcp", "add", "bad", "--url", "https://x", "--", "cmd"); err == nil {
		t.Fatal("command and url together must fail")
	}
	out, _, err = runCLI(t, home, "", "mcp", "list", "--cd", work)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"everything", "npx -y @modelcontextprotocol/server-everything", "docs", "https://example.com/mcp", "proj", "needs approval"} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %q:\n%s", want, out)
		}
	}
	js, _, err := runCLI(t, home, "", "mcp", "list", "--json", "--cd", work)
	if err != nil || !json.Valid([]byte(js)) || strings.Contains(js, "secret-value") {
		t.Fatalf("list --json: %v\n%s", err, js)
	}
	if out, _, err = runCLI(t, home, "", "mcp", "remove", "everything"); err != nil || !strings.Contains(out, "removed") {
		t.Fatalf("remove: %v %q", err, out)
	}
	out, _, _ = runCLI(t, home, "", "mcp", "list", "--cd", work)
	if strings.Contains(out, "server-everything") || !strings.Contains(out, "docs") {
		t.Fatalf("after remove:\n%s", out)
	}
}

// oneToolCall scripts a root that calls one tool, then answers with its output.
func oneToolCall(t *testing.T, name, args string) *modeltest.Server {
	s := modeltest.NewServer(t)
	s.Handle(func(r modeltest.CapturedRequest) modeltest.Reply {
		msgs := r.Messages()
		last, _ := msgs[len(msgs)-1].(map[string]any)
		if last["role"] == "tool" {
			return modeltest.Reply{Text: "tool said: " + fmt.Sprint(last["content"])}
		}
		return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: name, Arguments: args}}}
	})
	t.Setenv("OPENAI_BASE_URL", s.URL())
	t.Setenv("OPENAI_API_KEY", "sk-test")
	return s
}

// A project's .mcp.json server is never started by grove exec without an
// earlier approval: a warning says how to approve it, the run goes on.
func TestExecProjectMCPServerNeedsApproval(t *testing.T) {
	noProviderEnv(t)
	work := t.TempDir()
	_ = os.MkdirAll(filepath.Join(work, ".git"), 0o755)
	marker := filepath.Join(t.TempDir(), "started")
	cmdline := fmt.Sprintf(`{"mcpServers":{"proj":{"command":"sh","args":["-c","touch %s"]}}}`, marker)
	if err := os.WriteFile(filepath.Join(work, ".mcp.json"), []byte(cmdline), 0o644); err != nil {
		t.Fatal(err)
	}
	s := oneToolCall(t, "read_file", `{"path":"x"}`)
	out, errOut, err := runCLI(t, t.TempDir(), "", "exec", "--cd", work, "-m", "m", "go")
	if err != nil {
		t.Fatalf("exec: %v\n%s", err, errOut)
	}
	if !strings.Contains(out, "tool said") || !strings.Contains(errOut, "MCP server proj from") || !strings.Contains(errOut, "this session cannot ask") {
		t.Fatalf("stdout %q\nstderr:\n%s", out, errOut)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the unapproved project server's command ran")
	}
	for _, r := range s.Requests() {
		if strings.Contains(fmt.Sprint(r.Body["tools"]), "mcp__proj") {
			t.Fatal("the unapproved server's tools were offered")
		}
	}
}

// Headless, a tool that is not annotated read-only is refused with what
// would let it run; trusted = true lets it run.
func TestExecMCPToolApprovalHeadless(t *testing.T) {
	npm := everythingDir(t)
	noProviderEnv(t)
	home := t.TempDir()
	cfg := fmt.Sprintf("[mcp_servers.everything]\ncommand = \"npx\"\nargs = [\"-y\", \"@modelcontextprotocol/server-everything\", \"stdio\"]\ncwd = %q\nstartup_timeout_sec = 60\n", npm)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	oneToolCall(t, "mcp__everything__toggle-simulated-logging", `{}`)
	out, errOut, err := runCLI(t, home, "", "exec", "-m", "m", "go")
	if err != nil || !strings.Contains(out, "trusted = true") {
		t.Fatalf("untrusted: %v\nstdout %q\nstderr:\n%s", err, out, errOut)
	}
	out, errOut, err = runCLI(t, home, "", "exec", "-c", "mcp_servers.everything.trusted=true", "-m", "m", "go")
	if err != nil || strings.Contains(out, "trusted = true") || !strings.Contains(strings.ToLower(out), "logging") {
		t.Fatalf("trusted: %v\nstdout %q\nstderr:\n%s", err, out, errOut)
	}
}

func TestMCPStatusLines(t *testing.T) {
	got := mcpStatusLines([]mcp.ServerStatus{
		{Name: "everything", State: mcp.StateReady, Tools: 13},
		{Name: "gh", State: mcp.StateFailed, Error: "MCP server gh failed to start: boom"},
		{Name: "proj", State: mcp.StateIdle, Source: "/p/.mcp.json"},
	})
	want := []string{"everything: ready, 13 tools", "gh: failed: MCP server gh failed to start: boom", "proj: idle (/p/.mcp.json)"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("lines:\n%s", strings.Join(got, "\n"))
	}
}
