package appserver

// Cases ported from openai/codex codex-rs/app-server/tests/suite/v2/
// compaction.rs, config_rpc.rs and model_list.rs.

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/config"
	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
)

// compaction.rs compaction_emits_item_lifecycle_and_legacy_completion_notification:
// an automatic compaction inside a turn is a contextCompaction item of
// that turn (0.169's name for it), then thread/compacted.
func TestCodexCompactionEmitsItemLifecycleAndLegacyNotification(t *testing.T) {
	f := newFixture(t, func(ctx context.Context, req model.Request) (model.Response, error) {
		prompt, outs := lastInput(req.Items)
		switch {
		case strings.HasPrefix(prompt, "You are performing a CONTEXT CHECKPOINT COMPACTION"):
			return model.Response{Text: "COMPACTED_SUMMARY"}, nil
		case prompt == "trigger compaction" && len(outs) == 0:
			return model.Response{ToolCalls: []model.ToolCallRequest{toolCall("call-1", "exec_command", map[string]any{"cmd": "echo hi"})},
				Usage: protocol.TokenUsage{InputTokens: 1_000_000, TotalTokens: 1_000_000}}, nil
		}
		return model.Response{Text: "post-compact"}, nil
	})
	f.tune = func(o *engine.Options) { o.AutoCompactTokenLimit = 1 }
	c := f.start(t)
	defer c.close()
	c.result("initialize", map[string]any{"clientInfo": map[string]any{"name": "codex_vscode", "title": "Codex VS Code Extension", "version": "0.1.0"}})
	id := str(c.result("thread/start", map[string]any{"model": "mock-model", "approvalPolicy": "never"}), "thread", "id")
	turnID := str(c.result("turn/start", turnInput(id, "trigger compaction")), "turn", "id")
	started := c.notification("item/started", func(p map[string]any) bool { return str(p, "item", "type") == "contextCompaction" })
	completed := c.notification("item/completed", func(p map[string]any) bool { return str(p, "item", "type") == "contextCompaction" })
	legacy := c.notification("thread/compacted", nil)
	if started["threadId"] != id || started["turnId"] != turnID || completed["turnId"] != turnID || str(started, "item", "id") != str(completed, "item", "id") {
		t.Fatalf("contextCompaction item: started %v, completed %v", started, completed)
	}
	if legacy["threadId"] != id || legacy["turnId"] != turnID {
		t.Fatalf("thread/compacted: %v", legacy)
	}
	c.notification("turn/completed", func(p map[string]any) bool { return str(p, "turn", "id") == turnID })
}

// config_rpc.rs config_read_returns_effective_and_layers: the user's
// file and the (empty) session-flags layer, highest precedence first.
func TestCodexConfigReadReturnsEffectiveAndLayers(t *testing.T) {
	f := newFixture(t, treeScript)
	file := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(file, []byte("model = \"gpt-user\"\nsandbox_mode = \"workspace-write\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := &config.Config{Model: "gpt-user", SandboxMode: "workspace-write"}
	c := f.startWith(t, Options{Host: &Host{Config: cfg, ConfigFile: file, Provider: config.Resolved{Name: "openai", Model: "gpt-user"}}})
	defer c.close()
	c.initialize()
	r := c.result("config/read", map[string]any{"includeLayers": true})
	if str(r, "config", "model") != "gpt-user" || str(r["origins"].(map[string]any), "model", "name", "type") != "user" {
		t.Fatalf("config/read: %v", r)
	}
	layers, _ := r["layers"].([]any)
	if len(layers) != 2 || str(layers[0].(map[string]any), "name", "type") != "sessionFlags" || str(layers[1].(map[string]any), "name", "type") != "user" {
		t.Fatalf("layers: %v", layers)
	}
}

// modelsFrom is a provider whose GET /models lists ids.
type modelsFrom []string

func (m modelsFrom) Models(context.Context) ([]model.ModelInfo, error) {
	out := make([]model.ModelInfo, len(m))
	for i, id := range m {
		out[i] = model.ModelInfo{ID: id}
	}
	return out, nil
}

// model_list.rs list_models_pagination_works (grove's list: the
// configured model first, then the provider's).
func TestCodexModelListPaginationWorks(t *testing.T) {
	f := newFixture(t, treeScript)
	host := &Host{Config: &config.Config{Model: "gpt-5.1-codex-max"}, Provider: config.Resolved{Name: "openai", Model: "gpt-5.1-codex-max"},
		Models: modelsFrom{"gpt-5.1-codex-max", "gpt-5.1-codex", "gpt-5.1-codex-mini", "gpt-5.2", "gpt-5.1"}}
	c := f.startWith(t, Options{Host: host})
	defer c.close()
	c.initialize()
	var cursor any
	for i, want := range []string{"gpt-5.1-codex-max", "gpt-5.1-codex", "gpt-5.1-codex-mini", "gpt-5.2", "gpt-5.1"} {
		r := c.result("model/list", map[string]any{"limit": 1, "cursor": cursor})
		data, _ := r["data"].([]any)
		if len(data) != 1 || str(data[0].(map[string]any), "id") != want {
			t.Fatalf("page %d: %v, want %s", i, data, want)
		}
		if cursor = r["nextCursor"]; (cursor == nil) != (i == 4) {
			t.Fatalf("page %d nextCursor %v", i, cursor)
		}
	}
}

// model_list.rs list_models_rejects_invalid_cursor.
func TestCodexModelListRejectsInvalidCursor(t *testing.T) {
	f := newFixture(t, treeScript)
	c := f.startWith(t, Options{Host: &Host{Config: &config.Config{}, Provider: config.Resolved{Name: "openai", Model: "gpt-5.1"}}})
	defer c.close()
	c.initialize()
	m := c.call("model/list", map[string]any{"cursor": "invalid"})
	if e, _ := m["error"].(map[string]any); e == nil || e["code"] != float64(-32600) || e["message"] != "invalid cursor: invalid" {
		t.Fatalf("model/list with a bad cursor: %v", m)
	}
}
