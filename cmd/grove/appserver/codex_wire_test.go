package appserver

// Cases whose checks are on the model request's wire body, run against
// the in-process Responses server (Codex's core_test_support::responses):
// openai/codex codex-rs/app-server/tests/suite/v2/output_schema.rs.

import (
	"context"
	"testing"

	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/model/modeltest"
	"github.com/grovecli/grove/protocol"
)

// wireFixture is a fixture whose engines talk to a Responses server.
func wireFixture(t *testing.T) (*fixture, *modeltest.Server) {
	srv := modeltest.NewServer(t)
	srv.Handle(func(modeltest.CapturedRequest) modeltest.Reply { return modeltest.Reply{Text: "Done"} })
	f := newFixture(t, nil)
	zero := 0
	f.build = func(ctx context.Context, cfg ThreadConfig) (*engine.Engine, error) {
		client, err := model.New(model.ProviderConfig{Name: "mock_provider", BaseURL: srv.URL(), APIKey: "dummy", WireAPI: "responses", MaxRetries: &zero, StreamMaxRetries: &zero})
		if err != nil {
			return nil, err
		}
		return engine.New(ctx, engine.Options{
			Home: f.home, Client: client, Provider: "mock_provider", Model: "mock-model", Cwd: f.cwd,
			Sandbox: protocol.SandboxPolicy{Mode: protocol.SandboxReadOnly}, ApprovalPolicy: protocol.ApprovalNever,
		})
	}
	return f, srv
}

// outputSchema is Codex's test schema.
var outputSchema = map[string]any{
	"type":                 "object",
	"properties":           map[string]any{"answer": map[string]any{"type": "string"}},
	"required":             []any{"answer"},
	"additionalProperties": false,
}

func wantCodexFormat(t *testing.T, got map[string]any) {
	t.Helper()
	want := map[string]any{"name": "codex_output_schema", "type": "json_schema", "strict": true, "schema": outputSchema}
	if mustJSON(got) != mustJSON(want) {
		t.Fatalf("text.format %s, want %s", mustJSON(got), mustJSON(want))
	}
}

func runTurn(t *testing.T, c *client, in map[string]any) {
	t.Helper()
	turnID := str(c.result("turn/start", in), "turn", "id")
	tc := c.notification("turn/completed", func(p map[string]any) bool { return str(p, "turn", "id") == turnID })
	if str(tc, "turn", "status") != "completed" {
		t.Fatalf("turn/completed: %v", tc)
	}
}

// output_schema.rs turn_start_accepts_output_schema_v2.
func TestCodexTurnStartAcceptsOutputSchemaOnTheWire(t *testing.T) {
	f, srv := wireFixture(t)
	c := f.start(t)
	defer c.close()
	c.initialize()
	id := str(c.result("thread/start", map[string]any{}), "thread", "id")
	runTurn(t, c, withOverrides(turnInput(id, "Hello"), "outputSchema", outputSchema))
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests, want 1", len(reqs))
	}
	wantCodexFormat(t, reqs[0].OutputFormat())
}

// output_schema.rs turn_start_output_schema_is_per_turn_v2.
func TestCodexTurnStartOutputSchemaIsPerTurnOnTheWire(t *testing.T) {
	f, srv := wireFixture(t)
	c := f.start(t)
	defer c.close()
	c.initialize()
	id := str(c.result("thread/start", map[string]any{}), "thread", "id")
	runTurn(t, c, withOverrides(turnInput(id, "Hello"), "outputSchema", outputSchema))
	runTurn(t, c, turnInput(id, "Hello again"))
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	wantCodexFormat(t, reqs[0].OutputFormat())
	if f := reqs[1].OutputFormat(); f != nil {
		t.Fatalf("the second turn still sent text.format %v", f)
	}
}
