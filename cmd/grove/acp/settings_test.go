package acp

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/grovecli/grove/core/app"
	"github.com/grovecli/grove/protocol"
)

// TestSessionModesModelsAndList: modes are the approval policies (set_mode
// changes what needs permission), set_model the model of the next turns,
// and session/list the stored sessions.
func TestSessionModesModelsAndList(t *testing.T) {
	f := &fixture{home: t.TempDir(), cwd: t.TempDir(), blocked: make(chan struct{}, 1)}
	c := f.connect(t)
	defer c.stop()
	ctx := context.Background()
	init, err := c.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber})
	if err != nil || init.AgentCapabilities.SessionCapabilities.List == nil {
		t.Fatalf("initialize must advertise session/list: %v %+v", err, init.AgentCapabilities)
	}
	ns, err := c.NewSession(ctx, sdk.NewSessionRequest{Cwd: f.cwd, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	sid := ns.SessionId
	if ns.Modes == nil || ns.Modes.CurrentModeId != "untrusted" || len(ns.Modes.AvailableModes) != 4 {
		t.Fatalf("modes: %+v", ns.Modes)
	}
	if ns.Models == nil || ns.Models.CurrentModelId != "scripted-model" || len(ns.Models.AvailableModels) != 2 || ns.Models.AvailableModels[1].ModelId != "listed-model" {
		t.Fatalf("models: %+v", ns.Models)
	}

	// untrusted asks; after set_mode never, the same command runs unasked.
	c.client.setAnswer(string(protocol.DecisionApproved))
	prompt(t, c, sid, "write a")
	if _, err := c.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: sid, ModeId: "never"}); err != nil {
		t.Fatal(err)
	}
	c.client.waitFor(t, "current mode update", func(u sdk.SessionUpdate) bool {
		return u.CurrentModeUpdate != nil && u.CurrentModeUpdate.CurrentModeId == "never"
	})
	c.client.setAnswer("") // a permission request now would be cancelled
	prompt(t, c, sid, "write b")
	c.client.mu.Lock()
	asked := len(c.client.asked)
	c.client.mu.Unlock()
	if asked != 1 || !fileExists(filepath.Join(f.cwd, "b.txt")) {
		t.Fatalf("after set_mode never: %d permission requests (want only the first command's), b.txt written: %v", asked, fileExists(filepath.Join(f.cwd, "b.txt")))
	}
	if _, err := c.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: sid, ModeId: "yolo"}); err == nil || !strings.Contains(err.Error(), "yolo") {
		t.Fatalf("an unknown mode must be refused, naming it: %v", err)
	}

	if _, err := c.UnstableSetSessionModel(ctx, sdk.UnstableSetSessionModelRequest{SessionId: sid, ModelId: "listed-model"}); err != nil {
		t.Fatal(err)
	}
	prompt(t, c, sid, "hello")
	f.mu.Lock()
	last := f.models[len(f.models)-1]
	f.mu.Unlock()
	if last != "listed-model" {
		t.Fatalf("after set_model the turn used %q", last)
	}

	list, err := c.ListSessions(ctx, sdk.ListSessionsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Sessions) != 1 || list.Sessions[0].SessionId != sid || list.Sessions[0].Cwd != f.cwd || list.Sessions[0].Title == nil || *list.Sessions[0].Title != "write a" || list.Sessions[0].UpdatedAt == nil {
		t.Fatalf("session/list: %+v", list.Sessions)
	}
	other := t.TempDir()
	if list, err = c.ListSessions(ctx, sdk.ListSessionsRequest{Cwd: &other}); err != nil || len(list.Sessions) != 0 {
		t.Fatalf("session/list filtered by another cwd: %+v %v", list, err)
	}
	bad := "zz"
	if _, err := c.ListSessions(ctx, sdk.ListSessionsRequest{Cursor: &bad}); err == nil {
		t.Fatal("a cursor the agent never returned must be refused")
	}
}

// TestSetModeIsTheSessionCoresCheck: session/set_mode goes through the
// session core, which judges it as every front end's settings (the TUI's
// approval modes, the app-server's turn/start): an unknown mode is
// invalid params in the core's words, and a valid one reaches the engine
// (the next command runs unasked).
func TestSetModeIsTheSessionCoresCheck(t *testing.T) {
	f := &fixture{home: t.TempDir(), cwd: t.TempDir(), blocked: make(chan struct{}, 1)}
	c := f.connect(t)
	defer c.stop()
	ctx := context.Background()
	if _, err := c.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	ns, err := c.NewSession(ctx, sdk.NewSessionRequest{Cwd: f.cwd, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	want := app.CheckSettingsChange(protocol.TurnOverrides{ApprovalPolicy: "yolo"}).Error()
	_, err = c.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: ns.SessionId, ModeId: "yolo"})
	var re *sdk.RequestError
	if !errors.As(err, &re) || re.Code != -32602 {
		t.Fatalf("set_mode yolo: %v, want invalid params", err)
	}
	if data, _ := re.Data.(map[string]any); data["modeId"] != want {
		t.Fatalf("set_mode yolo: data %v, want modeId %q", re.Data, want)
	}
	if _, err := c.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: ns.SessionId, ModeId: "never"}); err != nil {
		t.Fatal(err)
	}
	c.client.setAnswer("") // a permission request now would be cancelled
	prompt(t, c, ns.SessionId, "write b")
	c.client.mu.Lock()
	asked := len(c.client.asked)
	c.client.mu.Unlock()
	if asked != 0 || !fileExists(filepath.Join(f.cwd, "b.txt")) {
		t.Fatalf("after set_mode never: %d permission requests, b.txt written: %v", asked, fileExists(filepath.Join(f.cwd, "b.txt")))
	}
}
