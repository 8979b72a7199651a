package appserver

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/grovecli/grove/core/config"
	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/core/mcp"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/tools"
	"github.com/grovecli/grove/protocol"
)

// ideFixture is an installation as an IDE finds it: a config.toml naming a
// provider (a local server with GET /models) and an MCP server (an
// in-process go-sdk server over streamable HTTP), loaded by config.Load.
type ideFixture struct {
	*fixture
	host *Host
	mgr  *mcp.Manager
}

type noteArgs struct {
	Name string `json:"name"`
}

func newIDEFixture(t *testing.T) *ideFixture {
	t.Helper()
	provider := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" || r.Header.Get("Authorization") != "Bearer sk-startup-test" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, `{"data":[{"id":"provider-model-a"},{"id":"model-x"}]}`)
	}))
	t.Cleanup(provider.Close)
	srv := sdk.NewServer(&sdk.Implementation{Name: "notes", Version: "1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "read_note", Description: "Read a note.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *sdk.CallToolRequest, a noteArgs) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "note " + a.Name + ": buy milk"}}}, nil, nil
		})
	mcpSrv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(mcpSrv.Close)

	t.Setenv("GROVE_STARTUP_TEST_KEY", "sk-startup-test")
	f := newFixture(t, noteScript)
	file := filepath.Join(f.home, "config.toml")
	toml := fmt.Sprintf(`model = "model-x"
model_provider = "local"
model_reasoning_effort = "high"
approval_policy = "on-request"

[model_providers.local]
name = "Local"
base_url = "%s/v1"
env_key = "GROVE_STARTUP_TEST_KEY"
http_headers = { "X-Team-Token" = "secret-header-value" }

[agents.model_aliases]
sonnet = "alias-model"

[mcp_servers.notes]
url = "%s"
`, provider.URL, mcpSrv.URL)
	if err := os.WriteFile(file, []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	overrides := []string{`sandbox_mode="workspace-write"`}
	cfg, err := config.Load(f.home, overrides)
	if err != nil {
		t.Fatal(err)
	}
	prov, err := cfg.ResolveProvider(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	client, err := model.New(model.ProviderConfig{Name: prov.Name, BaseURL: prov.BaseURL, APIKey: prov.APIKey, WireAPI: prov.WireAPI, Headers: prov.Headers})
	if err != nil {
		t.Fatal(err)
	}
	mgr := mcp.New(mcp.Options{Servers: cfg.MCPServers, Cwd: f.cwd, NoProjectFile: true})
	t.Cleanup(func() { _ = mgr.Close() })
	ide := &ideFixture{fixture: f, mgr: mgr, host: &Host{Config: cfg, ConfigFile: file, Overrides: overrides, Provider: prov, Models: client, MCPStatus: mgr.Status}}
	f.build = ide.engine
	return ide
}

// engine is the fixture's factory with the MCP manager's tools.
func (f *ideFixture) engine(ctx context.Context, cfg ThreadConfig) (*engine.Engine, error) {
	reg := tools.NewRegistry()
	if err := tools.RegisterCore(reg); err != nil {
		return nil, err
	}
	reg.AddSource(f.mgr)
	return engine.New(ctx, engine.Options{
		Home: f.home, Client: model.NewScripted("scripted", f.script), Provider: "local", Model: "model-x",
		Cwd: f.cwd, Sandbox: protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite}, ApprovalPolicy: cfg.ApprovalPolicy, Tools: reg,
	})
}

// noteScript reads a note through the MCP server, then answers.
func noteScript(_ context.Context, req model.Request) (model.Response, error) {
	if _, outs := lastInput(req.Items); len(outs) == 0 {
		return model.Response{ToolCalls: []model.ToolCallRequest{toolCall("call-note", "mcp__notes__read_note", map[string]any{"name": "todo"})}}, nil
	}
	return model.Response{Text: "you need milk"}, nil
}

// TestIDEStartupSequence replays an IDE's startup against a real
// configuration; the harness validates every reply against Codex's schema.
// The order is the Codex TUI's bootstrap (openai/codex
// codex-rs/tui/src/app_server_session.rs, AppServerSession::bootstrap:
// initialize, account/read {refreshToken:false}, model/list
// {includeHidden:true}), then the calls issue 24 saw the VS Code extension
// make (config/read, mcpServerStatus/list), then a thread whose turn calls
// an MCP tool.
func TestIDEStartupSequence(t *testing.T) {
	f := newIDEFixture(t)
	c := f.startWith(t, Options{Host: f.host})
	defer c.close()
	c.result("initialize", map[string]any{"clientInfo": map[string]any{"name": "codex_vscode", "title": "Codex VS Code Extension", "version": "0.4.0"}})
	c.writeLine(`{"method":"initialized"}`)

	acct := c.result("account/read", map[string]any{"refreshToken": false})
	if str(acct, "account", "type") != "apiKey" || acct["requiresOpenaiAuth"] != false {
		t.Fatalf("account/read with the provider's key set: %v", acct)
	}

	models := c.result("model/list", map[string]any{"includeHidden": true})
	ids := modelIDs(models)
	if strings.Join(ids, ",") != "model-x,alias-model,provider-model-a" {
		t.Fatalf("model/list: want the configured model, the alias, then the provider's other model; got %v", ids)
	}
	first := models["data"].([]any)[0].(map[string]any)
	if first["isDefault"] != true || first["defaultReasoningEffort"] != "high" {
		t.Fatalf("model/list: the configured model is the default with the configured effort: %v", first)
	}

	cfg := c.result("config/read", map[string]any{"includeLayers": true, "cwd": f.cwd})
	if str(cfg, "config", "model") != "model-x" || str(cfg, "config", "sandbox_mode") != "workspace-write" || str(cfg, "config", "model_reasoning_effort") != "high" {
		t.Fatalf("config/read: effective values: %v", cfg["config"])
	}
	if str(cfg, "origins", "model", "name", "type") != "user" || str(cfg, "origins", "sandbox_mode", "name", "type") != "sessionFlags" {
		t.Fatalf("config/read: origins: %v", cfg["origins"])
	}
	if layers, _ := cfg["layers"].([]any); len(layers) != 2 {
		t.Fatalf("config/read: want the -c layer and the file's: %v", cfg["layers"])
	}
	if raw := mustJSON(cfg); strings.Contains(raw, "secret-header-value") || !strings.Contains(raw, "X-Team-Token") {
		t.Fatalf("config/read must name a header but not send its value: %s", raw)
	}

	st := c.result("mcpServerStatus/list", map[string]any{})
	if got := mustJSON(st["data"]); !strings.Contains(got, `"name":"notes"`) || !strings.Contains(got, `"tools":{}`) {
		t.Fatalf("mcpServerStatus/list before any thread: the configured server, not started: %s", got)
	}

	start := c.result("thread/start", map[string]any{"cwd": f.cwd, "approvalPolicy": "never"})
	root := str(start, "thread", "id")
	turnID := str(c.result("turn/start", turnInput(root, "what do I need?")), "turn", "id")
	started := c.notification("item/started", func(p map[string]any) bool { return str(p, "item", "id") == "call-note" })
	if str(started, "item", "type") != "mcpToolCall" || str(started, "item", "server") != "notes" || str(started, "item", "tool") != "read_note" {
		t.Fatalf("an MCP call starts as an mcpToolCall item: %v", started)
	}
	done := c.notification("item/completed", func(p map[string]any) bool { return str(p, "item", "id") == "call-note" })
	if str(done, "item", "status") != "completed" || !strings.Contains(mustJSON(done["item"]), "note todo: buy milk") {
		t.Fatalf("completed mcpToolCall: %v", done)
	}
	c.notification("turn/completed", func(p map[string]any) bool { return str(p, "turn", "id") == turnID })

	st = c.result("mcpServerStatus/list", map[string]any{"limit": 10})
	tool := mustJSON(st["data"])
	if !strings.Contains(tool, `"read_note":{`) || !strings.Contains(tool, `"inputSchema":{`) || !strings.Contains(tool, "Read a note.") {
		t.Fatalf("mcpServerStatus/list after the server started: its tools: %s", tool)
	}

	// Paging: a cursor this server returned continues the list.
	page := c.result("model/list", map[string]any{"limit": 2})
	next, _ := page["nextCursor"].(string)
	rest := c.result("model/list", map[string]any{"cursor": next})
	if got := append(modelIDs(page), modelIDs(rest)...); strings.Join(got, ",") != strings.Join(ids, ",") || rest["nextCursor"] != nil {
		t.Fatalf("model/list pages: %v then %v", page, rest)
	}
	if e := c.call("model/list", map[string]any{"cursor": "x"}); e["error"] == nil {
		t.Fatalf("a cursor the server never returned: %v", e)
	}
}

func modelIDs(list map[string]any) []string {
	var ids []string
	data, _ := list["data"].([]any)
	for _, m := range data {
		ids = append(ids, m.(map[string]any)["id"].(string))
	}
	return ids
}

// TestStartupWithoutProvider: the demo has no account and no provider
// list, only its model; without a Host the methods fail, naming why.
func TestStartupWithoutProvider(t *testing.T) {
	f := newFixture(t, noteScript)
	cfg, err := config.Load(f.home, []string{`model_provider="demo"`})
	if err != nil {
		t.Fatal(err)
	}
	prov, err := cfg.ResolveProvider(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	c := f.startWith(t, Options{Host: &Host{Config: cfg, Provider: prov}})
	c.initialize()
	if a := c.result("account/read", map[string]any{}); a["account"] != nil || a["requiresOpenaiAuth"] != false {
		t.Fatalf("demo account: %v", a)
	}
	if ids := modelIDs(c.result("model/list", nil)); strings.Join(ids, ",") != "grove-demo" {
		t.Fatalf("demo models: %v", ids)
	}
	// The offline demo is not configuration (issue 34): no model, no
	// provider reported as if the user had set them.
	if cr := c.result("config/read", nil); cr["config"].(map[string]any)["model_provider"] != nil || cr["config"].(map[string]any)["model"] != nil || len(cr["origins"].(map[string]any)) != 0 {
		t.Fatalf("config/read without a file: %v", cr)
	}
	c.close()

	c = f.start(t)
	c.initialize()
	e := c.call("account/read", nil)
	if e["error"] == nil || !strings.Contains(mustJSON(e), "no Host") {
		t.Fatalf("no host: %v", e)
	}
	c.close()
}
