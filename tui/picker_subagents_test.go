package tui

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/grovecli/grove/core/demo"
	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/surface"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
	"github.com/grovecli/grove/templates"
)

// subAgentSession runs a real session through the engine and a scripted
// model: the root spawns two workers, waits for both and answers. It
// returns the engine's home and the root's id, the engine shut down.
func subAgentSession(t *testing.T) (home, cwd string, root protocol.ThreadID) {
	t.Helper()
	base := t.TempDir()
	home, cwd = filepath.Join(base, "home"), filepath.Join(base, "work")
	for _, d := range []string{home, cwd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	fn := func(_ context.Context, req model.Request) (model.Response, error) {
		if strings.Contains(req.Instructions, "you are sub-agent") {
			return model.Response{Text: "found 3 parsers"}, nil
		}
		tn := demo.ParseTurn(req.Items)
		switch tn.Rounds {
		case 0:
			return model.Response{ToolCalls: []model.ToolCallRequest{
				{CallID: "a", Name: "spawn_agent", Arguments: `{"message":"survey the parsers"}`},
				{CallID: "b", Name: "spawn_agent", Arguments: `{"message":"survey the tests"}`},
			}}, nil
		case 1:
			ids, _ := json.Marshal([]string{spawnedAgent(tn.Outputs["a"]), spawnedAgent(tn.Outputs["b"])})
			return model.Response{ToolCalls: []model.ToolCallRequest{{CallID: "w", Name: "wait", Arguments: `{"ids":` + string(ids) + `}`}}}, nil
		}
		return model.Response{Text: "both surveys are in"}, nil
	}
	opts := engine.Options{
		Home: home, Cwd: cwd, Model: "scripted", Client: model.NewScripted("scripted", fn),
		Sandbox:   protocol.SandboxPolicy{Mode: protocol.SandboxDangerFullAccess},
		Surfaces:  []engine.SurfaceFactory{surface.CollabFactory},
		Templates: templates.Load(templates.Dirs{Cwd: cwd, GroveHome: home, UserHome: base}, templates.Options{}),
	}
	e, err := engine.New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	events, cancel := e.Subscribe()
	defer cancel()
	if root, err = e.StartRoot(); err != nil {
		t.Fatal(err)
	}
	if err := e.SubmitText(root, "survey the parser code"); err != nil {
		t.Fatal(err)
	}
	for ev := range events {
		if ev.ThreadID == root && ev.Type == protocol.EventStatusChanged && ev.Status.Kind == protocol.StatusCompleted && ev.Status.Message == "both surveys are in" {
			break
		}
	}
	if err := e.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	return home, cwd, root
}

func spawnedAgent(out string) string {
	var r struct {
		AgentID string `json:"agent_id"`
	}
	_ = json.Unmarshal([]byte(out), &r)
	return r.AgentID
}

// The picker on a real session with sub-agents: its title is the first
// prompt, the row counts the two sub-agents (the tree shows the root too:
// "+2 agents"), the preview counts the root's messages and labels a
// sub-agent's report as the agent's, never as the user's. Then the
// session is resumed in a new engine and, while it is open, the picker of
// another grove still counts both sub-agents.
func TestPickerSessionWithSubAgents(t *testing.T) {
	home, cwd, root := subAgentSession(t)
	check := func(when string) {
		t.Helper()
		p := newPicker(home, time.Now)
		runPicker(p, p.load())
		if len(p.entries) != 1 || p.entries[0].ID != root {
			t.Fatalf("%s: entries %+v", when, p.entries)
		}
		runPicker(p, p.preview())
		r := &renderer{th: newTheme(), now: p.now}
		s := ansiStrip(strings.Join(p.view(r, 160, 20), "\n"))
		for _, want := range []string{"survey the parser code", "+2 agents", "2 sub-agents", "you: survey the parser code", "grove: both surveys are in"} {
			if !strings.Contains(s, want) {
				t.Fatalf("%s: %q missing:\n%s", when, want, s)
			}
		}
		if strings.Contains(s, "you: found 3") || strings.Contains(s, "(no message sent)") {
			t.Fatalf("%s: a sub-agent's report shown as the user's, or no title:\n%s", when, s)
		}
	}
	check("after the session")

	e2, err := engine.New(context.Background(), engine.Options{
		Home: home, Cwd: cwd, Model: "scripted", Client: model.NewScripted("scripted", func(context.Context, model.Request) (model.Response, error) {
			return model.Response{Text: "unused"}, nil
		}),
		Sandbox:  protocol.SandboxPolicy{Mode: protocol.SandboxDangerFullAccess},
		Surfaces: []engine.SurfaceFactory{surface.CollabFactory},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = e2.Shutdown(context.Background()) }()
	if _, err := e2.ResumeSession(string(root)); err != nil {
		t.Fatal(err)
	}
	check("while it is open again")
}

// Titles and counts at 80x24 and 120x40: a long title keeps half the row
// against a deep directory (whose start is cut), a session quit before
// its first message says so, a deleted directory keeps its mark, and the
// preview labels a sub-agent's message and leaves grove's notices out.
func TestGoldenPickerTitles(t *testing.T) {
	saved := dirGone
	dirGone = func(dir string) bool { return strings.HasSuffix(dir, "/gone") }
	defer func() { dirGone = saved }()
	home := t.TempDir()
	id := func(i int) protocol.ThreadID {
		return protocol.ThreadID("0000000" + itoa(i) + "-0000-7000-8000-00000000000" + itoa(i))
	}
	rec, err := rollout.Create(home, rollout.SessionMeta{ID: id(3), Cwd: "/work/clients/acme/services/billing-gateway/internal", Timestamp: t0})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range []protocol.Item{
		protocol.GroveNotice("hook context: the repository uses tabs"),
		protocol.UserMessage("move the invoice rounding into one place and test every currency"),
		protocol.AssistantMessage("Two agents will survey the callers first."),
		protocol.AgentMessage(id(9), "found 14 callers of roundInvoice"),
		protocol.AssistantMessage("Done: one rounding function, 14 callers moved."),
	} {
		if err := rec.AppendItem(it); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	for _, e := range []rollout.IndexEntry{
		{ID: id(1), Cwd: "/work/gone", UpdatedAt: t0.Add(-3 * time.Hour), FirstPrompt: "write the changelog"},
		{ID: id(2), Cwd: "/work/project", UpdatedAt: t0.Add(-2 * time.Hour)},
		{ID: id(3), Cwd: "/work/clients/acme/services/billing-gateway/internal", UpdatedAt: t0.Add(-time.Hour),
			FirstPrompt: "move the invoice rounding into one place and test every currency", ChildCount: 3, Model: "gpt-5", RolloutPath: rec.Path()},
	} {
		if err := rollout.AppendIndex(home, e); err != nil {
			t.Fatal(err)
		}
	}
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		c := &clock{t: t0}
		m := NewModel(Options{StartInPicker: true, Home: home, Now: c.now})
		mm, _ := m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		m = mm.(Model)
		runPicker(m.picker, m.picker.load())
		runPicker(m.picker, m.picker.preview())
		s := screen(m)
		checkSize(t, s, size[0], size[1])
		golden(t, "picker_"+sizeName(size), s)
		for _, want := range []string{"+3 agents", "(no message sent)", "✗ deleted", "move the invoice rounding"} {
			if !strings.Contains(s, want) {
				t.Fatalf("%q missing:\n%s", want, s)
			}
		}
	}
}
