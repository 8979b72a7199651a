package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"
)

// The test binary doubles as a stdio MCP server: with GROVE_MCP_TEST_SERVER
// set it serves (or misbehaves) instead of running tests, so the stdio
// cases drive a real child process speaking the real protocol.
func TestMain(m *testing.M) {
	switch mode := os.Getenv("GROVE_MCP_TEST_SERVER"); mode {
	case "":
		goleak.VerifyTestMain(m)
	case "serve":
		_ = newTestServer().Run(context.Background(), &sdk.StdioTransport{})
		os.Exit(0)
	case "env": // records its environment, then serves
		_ = os.WriteFile(os.Getenv("GROVE_MCP_TEST_ENV_OUT"), []byte(strings.Join(os.Environ(), "\n")), 0o600)
		_ = newTestServer().Run(context.Background(), &sdk.StdioTransport{})
		os.Exit(0)
	case "hang": // reads requests, never answers initialize
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	case "exit":
		fmt.Fprintln(os.Stderr, "test server: cannot open its database")
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "unknown GROVE_MCP_TEST_SERVER mode", mode)
		os.Exit(2)
	}
}

type textArgs struct {
	Text string `json:"text,omitempty"`
}

// newTestServer is an SDK server with one tool per behaviour under test;
// page size 2 makes tools/list paginate.
func newTestServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "grove-test", Version: "1"}, &sdk.ServerOptions{PageSize: 2})
	text := func(s string) *sdk.CallToolResult {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
	}
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Echo the text.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *sdk.CallToolRequest, a textArgs) (*sdk.CallToolResult, any, error) {
			return text("Echo: " + a.Text), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "write.note", Description: "Pretend to write."},
		func(_ context.Context, _ *sdk.CallToolRequest, a textArgs) (*sdk.CallToolResult, any, error) {
			return text("wrote " + a.Text), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "fail", Description: "Always an error result."},
		func(_ context.Context, _ *sdk.CallToolRequest, _ textArgs) (*sdk.CallToolResult, any, error) {
			r := text("disk is full")
			r.IsError = true
			return r, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "rich", Description: "Image and structured content.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *sdk.CallToolRequest, _ textArgs) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.TextContent{Text: "a picture"},
				&sdk.ImageContent{MIMEType: "image/png", Data: []byte("\x89PNG....")},
			}}, map[string]int{"width": 2}, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "big", Description: "Large output.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *sdk.CallToolRequest, _ textArgs) (*sdk.CallToolResult, any, error) {
			return text("HEAD" + strings.Repeat("x", 100<<10) + "TAIL"), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "slow", Description: "Reports progress, then waits to be cancelled.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *sdk.CallToolRequest, a textArgs) (*sdk.CallToolResult, any, error) {
			if tok := req.Params.GetProgressToken(); tok != nil {
				_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: tok, Progress: 1, Total: 3, Message: "warming up"})
			}
			<-ctx.Done()
			if a.Text != "" { // a file to mark that the server saw the cancellation
				_ = os.WriteFile(a.Text, []byte("cancelled"), 0o600)
			}
			return nil, nil, ctx.Err()
		})
	sdk.AddTool(s, &sdk.Tool{Name: "crash", Description: "Kills the server.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *sdk.CallToolRequest, textArgs) (*sdk.CallToolResult, any, error) {
			os.Exit(3)
			return nil, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "grow", Description: "Adds the tool 'extra' (tools/list_changed).", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *sdk.CallToolRequest, textArgs) (*sdk.CallToolResult, any, error) {
			sdk.AddTool(s, &sdk.Tool{Name: "extra", Description: "Added at run time.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
				func(context.Context, *sdk.CallToolRequest, textArgs) (*sdk.CallToolResult, any, error) {
					return text("extra!"), nil, nil
				})
			return text("grown"), nil, nil
		})
	return s
}

// rawArgs marshals call arguments.
func rawArgs(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
