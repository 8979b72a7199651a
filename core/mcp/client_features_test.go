package mcp

//lint:file-ignore SA1019 MCP roots and sampling are deprecated (SEP-2577) but servers still use them during the deprecation window; grove keeps offering them

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/grovecli/grove/core/config"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/tools"
	"github.com/grovecli/grove/protocol"
)

// clientFeatureServer is an in-process go-sdk server whose tools use the
// client's features: list_roots lists the roots grove offers, ask_model
// asks grove's model through sampling/createMessage.
func clientFeatureServer(t *testing.T) string {
	t.Helper()
	srv := sdk.NewServer(&sdk.Implementation{Name: "features", Version: "1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "list_roots", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
			res, err := req.Session.ListRoots(ctx, nil)
			if err != nil {
				return nil, nil, err
			}
			var uris []string
			for _, r := range res.Roots {
				uris = append(uris, r.URI)
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.Join(uris, ",")}}}, nil, nil
		})
	sdk.AddTool(srv, &sdk.Tool{Name: "ask_model", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *sdk.CallToolRequest, a textArgs) (*sdk.CallToolResult, any, error) {
			res, err := req.Session.CreateMessage(ctx, &sdk.CreateMessageParams{
				SystemPrompt: "Answer in one word.", MaxTokens: 50,
				Messages: []*sdk.SamplingMessage{{Role: "user", Content: &sdk.TextContent{Text: a.Text}}},
			})
			if err != nil {
				return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "sampling failed: " + err.Error()}}}, nil, nil
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "model said: " + res.Content.(*sdk.TextContent).Text + " (" + res.Model + ")"}}}, nil, nil
		})
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	return hs.URL
}

func TestRootsAndSampling(t *testing.T) {
	url := clientFeatureServer(t)
	ws, extra := t.TempDir(), t.TempDir()
	var mu sync.Mutex
	var asked []model.Request
	sampler := &Sampler{Model: "session-model", Client: model.NewScripted("s", func(_ context.Context, req model.Request) (model.Response, error) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, req)
		return model.Response{Text: "blue"}, nil
	})}
	m := New(Options{Servers: map[string]config.MCPServer{"f": {URL: url}}, Cwd: ws, NoProjectFile: true,
		Roots: []string{ws, extra, "relative/ignored"}, Sampler: sampler})
	t.Cleanup(func() { _ = m.Close() })
	reg := tools.NewRegistry()
	reg.AddSource(m)
	rec := &recorder{decision: protocol.DecisionApproved}
	env := rec.env(protocol.ApprovalOnRequest, protocol.SandboxWorkspaceWrite)
	reg.SpecsFor(context.Background(), env, nil)

	res := reg.Run(context.Background(), env, "mcp__f__list_roots", rawArgs(t, map[string]any{}))
	want := "file://" + filepath.ToSlash(ws) + ",file://" + filepath.ToSlash(extra)
	if res.IsError || res.Output != want {
		t.Fatalf("roots = %+v, want %s", res, want)
	}

	res = reg.Run(context.Background(), env, "mcp__f__ask_model", rawArgs(t, map[string]string{"text": "sky colour?"}))
	if res.IsError || res.Output != "model said: blue (session-model)" {
		t.Fatalf("sampling = %+v", res)
	}
	mu.Lock()
	defer mu.Unlock()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.asked) != 1 || rec.asked[0].Command != "mcp sampling: f" || !strings.Contains(rec.asked[0].Reason, "user: sky colour?") {
		t.Fatalf("the user must approve each sampling request, seeing the messages: %+v", rec.asked)
	}
	if len(asked) != 1 || asked[0].Model != "session-model" || asked[0].Instructions != "Answer in one word." || asked[0].Items[0].Content != "sky colour?" {
		t.Fatalf("model request: %+v", asked)
	}

	// Declined: the server gets an error, the model is not called.
	rec.decision = protocol.DecisionDenied
	rec.mu.Unlock()
	mu.Unlock()
	res = reg.Run(context.Background(), env, "mcp__f__ask_model", rawArgs(t, map[string]string{"text": "again"}))
	mu.Lock()
	rec.mu.Lock()
	if !res.IsError || !strings.Contains(res.Output, "declined") || len(asked) != 1 {
		t.Fatalf("declined sampling = %+v (model calls %d)", res, len(asked))
	}
}
