package config

import (
	"strings"
	"testing"
)

func TestProfilesLoad(t *testing.T) {
	home := writeConfig(t, `
[agents]
surface = "sessions"

[agents.profiles.reviewer]
developer_instructions = "You review prose."
model = "gpt-small"
reasoning_effort = "low"
description = "Reviews text"
`)
	cfg, err := Load(home, []string{`agents.profiles.poet.developer_instructions="Write verse."`})
	if err != nil {
		t.Fatal(err)
	}
	r := cfg.Agents.Profiles["reviewer"]
	if cfg.Agents.Surface != "sessions" || r.DeveloperInstructions != "You review prose." || r.Model != "gpt-small" || r.ReasoningEffort != "low" || r.Description != "Reviews text" {
		t.Fatalf("profiles: %+v", cfg.Agents)
	}
	if cfg.Agents.Profiles["poet"].DeveloperInstructions != "Write verse." {
		t.Fatalf("override profile: %+v", cfg.Agents.Profiles)
	}
}

func TestProfilesRejected(t *testing.T) {
	for body, want := range map[string]string{
		"[agents.profiles.empty]\nmodel = \"x\"\n":                                           "agents.profiles.empty: developer_instructions is empty",
		"[agents.profiles.Bad]\ndeveloper_instructions = \"x\"\n":                            "agents.profiles.Bad: a profile name is lower-case",
		"[agents.profiles.ok]\ndeveloper_instructions = \"x\"\nreasoning_effort = \"max\"\n": `agents.profiles.ok: reasoning_effort "max"`,
		"[agents]\nsurface = \"mail\"\n":                                                     `agents.surface "mail": expected collab, task, inbox, sessions or auto`,
	} {
		_, err := Load(writeConfig(t, body), nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", body, err, want)
		}
	}
}
