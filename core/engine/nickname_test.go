package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

// Every sub-agent gets a nickname unique in the session at spawn (Codex:
// codex-rs/core/src/agent/registry.rs, reserve_agent_nickname; its
// session meta keeps agent_nickname), a short persona wins, the rollout
// records it, and a resumed session names its agents as before.
func TestSpawnGivesUniqueNicknamesKeptOnResume(t *testing.T) {
	s := script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			if tn.rounds > 0 {
				return text("spawned"), nil
			}
			var cs []model.ToolCallRequest
			for i := range 8 {
				cs = append(cs, toolCall(fmt.Sprintf("sp%d", i), "spawn_agent", map[string]any{"agent_type": "worker", "message": "work"}))
			}
			cs = append(cs, toolCall("persona", "spawn_agent", map[string]any{"agent_type": "worker", "agent_name": "careful", "message": "work"}))
			return calls(cs...), nil
		},
		"worker": func(context.Context, turn) (model.Response, error) { return text("done"), nil },
	}
	env := newEnv(t, s, nil)
	env.send("go")
	env.rootFinal(1)
	names := map[protocol.ThreadID]string{}
	seen := map[string]bool{}
	for _, ti := range env.e.Threads() {
		if ti.ParentID == "" {
			if ti.Nickname != "" {
				t.Errorf("root has nickname %q", ti.Nickname)
			}
			continue
		}
		if ti.Nickname == "" || seen[strings.ToLower(ti.Nickname)] {
			t.Errorf("agent %s nickname %q empty or given twice", ti.ID, ti.Nickname)
		}
		seen[strings.ToLower(ti.Nickname)] = true
		names[ti.ID] = ti.Nickname
		sess, err := rollout.Read(ti.RolloutPath)
		if err != nil {
			t.Fatal(err)
		}
		if sess.Meta.AgentNickname != ti.Nickname {
			t.Errorf("rollout records %q, thread says %q", sess.Meta.AgentNickname, ti.Nickname)
		}
	}
	if len(names) != 9 {
		t.Fatalf("%d agents, want 9", len(names))
	}
	if id := spawnedID(t, env.toolOutput("persona").Output); names[id] != "careful" {
		t.Errorf("persona agent named %q, want careful", names[id])
	}
	if err := env.e.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	e2, _ := env.resumeInNewEngine()
	for _, ti := range e2.Threads() {
		if ti.ParentID != "" && ti.Nickname != names[ti.ID] {
			t.Errorf("resumed agent %s is %q, was %q", ti.ID, ti.Nickname, names[ti.ID])
		}
	}
}

// Past the list the names come round again with a number; a recorded
// name is kept even if taken.
func TestNicknameBookBeyondTheList(t *testing.T) {
	var b nicknameBook
	seen := map[string]bool{}
	for i := range len(agentNicknames) + 3 {
		n := b.take("", "", protocol.ThreadID(fmt.Sprintf("id-%d", i)))
		if seen[n] {
			t.Fatalf("%q given twice", n)
		}
		seen[n] = true
	}
	second := 0
	for n := range seen {
		if strings.HasSuffix(n, " 2") {
			second++
		}
	}
	if second != 3 {
		t.Errorf("%d second-round names, want 3", second)
	}
	if n := b.take("Euclid", "", "resumed"); n != "Euclid" {
		t.Errorf("recorded name became %q", n)
	}
	if n := b.take("", "root", "x"); n == "root" {
		t.Error(`a persona "root" became a nickname`)
	}
	if n := b.take("", strings.Repeat("x", maxPersonaNickname+1), "y"); len(n) > maxPersonaNickname {
		t.Errorf("a long persona became the nickname %q", n)
	}
}
