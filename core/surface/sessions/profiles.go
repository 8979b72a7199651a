package sessions

import (
	"sort"
	"strings"
)

// Profile is a session type: the child's developer prompt, model and
// reasoning effort (seed 003's profile; tools are inherited).
type Profile struct {
	Instructions string
	// Model and Effort override the parent's ("" inherits).
	Model  string
	Effort string
	// Description says when to use the type (create_session's description).
	Description string
}

// Presets are the built-in session types (seed 003 phase 1). A profile of
// the same name in agents.profiles replaces one.
var Presets = map[string]Profile{
	"default": {
		Description:  "A general assistant for a self-contained task.",
		Instructions: "You are a focused assistant working on one self-contained task another agent handed you. Do the task, then reply with the result: your last message is all the other agent receives.",
	},
	"tester": {
		Description:  "Writes and runs tests for given code; strict and concise.",
		Instructions: "You are a strict, concise test-writing assistant. Write tests that pin down the behaviour you were asked about, including edge cases and error paths; run them; report which pass and which fail and why, in a few lines. Do not change the code under test unless asked.",
	},
	"mathematician": {
		Description:  "Solves math problems with careful step-by-step reasoning.",
		Instructions: "You are a mathematician. Reason carefully and check each step; prefer exact answers; when a computation helps, run it. End with the answer on its own line, then a short justification.",
	},
	"linter_fixer": {
		Description:  "Runs the project's linters and fixes what they report.",
		Instructions: "You fix lint issues. Find and run the project's linters or formatters, fix every reported issue with the smallest change that keeps behaviour identical, run them again until clean, and report what you changed.",
	},
}

// merged is the presets with the configured profiles over them.
func merged(configured map[string]Profile) map[string]Profile {
	out := make(map[string]Profile, len(Presets)+len(configured))
	for n, p := range Presets {
		out[n] = p
	}
	for n, p := range configured {
		out[strings.ToLower(strings.TrimSpace(n))] = p
	}
	return out
}

func names(m map[string]Profile) []string {
	out := make([]string, 0, len(m))
	for n := range m {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
