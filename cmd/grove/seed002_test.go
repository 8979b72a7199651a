package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestAgentsListShowsSeededUserFiles: the first run copies the built-in
// roles into $GROVE_HOME/agents (seed 002's seed-on-empty) and `grove
// agents list` shows them as user files; deleted, they stay deleted.
func TestAgentsListShowsSeededUserFiles(t *testing.T) {
	noProviderEnv(t)
	home := t.TempDir()
	out, errOut, err := runCLI(t, home, "", "agents", "list", "--json", "--cd", t.TempDir())
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	var v struct {
		Agents []agentRow `json:"agents"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	seen := 0
	for _, a := range v.Agents {
		switch a.AgentType {
		case "worker", "explorer", "orchestrator":
			seen++
			if a.Scope != "user" || a.Source != filepath.Join(home, "agents", a.AgentType+".md") {
				t.Errorf("%s: scope %q source %q", a.AgentType, a.Scope, a.Source)
			}
		}
	}
	if seen != 3 {
		t.Fatalf("built-in roles listed: %d\n%s", seen, out)
	}
	if err := os.RemoveAll(filepath.Join(home, "agents")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCLI(t, home, "", "agents", "list", "--cd", t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(home, "agents")); err == nil {
		t.Fatal("re-seeded after the user deleted the copies")
	}
}
