package task

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/model"
)

// TestSeed004ExploreAndPlanGlobFiles: seed 004 §4 (clauses 004-20, 004-59).
// Explore gets exactly read_file, glob_files, grep_files, list_dir and Plan
// read_file, glob_files, grep_files (plus complete_task, §3.5); both are
// told prompts/explore.md and prompts/plan.md verbatim, substituted; and
// glob_files finds files by pattern.
func TestSeed004ExploreAndPlanGlobFiles(t *testing.T) {
	cwd := project(t, nil)
	for _, f := range []string{"cmd/app/main.go", "cmd/app/main_test.go", "README.md"} {
		p := filepath.Join(cwd, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := newScripted(nil)
	c.Reply = func(role string, req model.Request) model.Response {
		outs := outputs(req)
		switch role {
		case "root":
			switch {
			case outs["t2"] != "":
				return model.Response{Text: "done"}
			case outs["t1"] != "":
				return call("t2", "Task", `{"subagent_type":"Plan","prompt":"plan the change","description":"plan"}`)
			}
			return call("t1", "Task", `{"subagent_type":"Explore","prompt":"find the go files","description":"find"}`)
		case "Explore":
			if _, ok := outs["g1"]; ok {
				return call("d", "complete_task", `{"result":"found"}`)
			}
			return call("g1", "glob_files", `{"pattern":"**/*.go"}`)
		}
		return call("d", "complete_task", `{"result":"planned"}`)
	}
	e, root := start(t, c, setup{cwd: cwd})
	runRoot(t, e, root, "go")

	for _, tc := range []struct {
		role, task, prompt string
		tools              []string
	}{
		{"Explore", "find the go files", explorePrompt, []string{"read_file", "glob_files", "grep_files", "list_dir", "complete_task"}},
		{"Plan", "plan the change", planPrompt, []string{"read_file", "glob_files", "grep_files", "complete_task"}},
	} {
		reqs := c.Requests(tc.role)
		if len(reqs) == 0 {
			t.Fatalf("%s never ran", tc.role)
		}
		got, want := toolNames(reqs[0]), slices.Clone(tc.tools)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s tools = %v, want %v", tc.role, got, want)
		}
		wantSys := strings.NewReplacer("${cwd}", cwd, "${prompt}", tc.task).Replace(tc.prompt)
		if sys := reqs[0].Instructions; sys != wantSys {
			t.Errorf("%s system prompt:\n%s\nwant seed 004 §4's:\n%s", tc.role, sys, wantSys)
		}
	}
	if !strings.Contains(explorePrompt, "   - `glob_files` for finding files by pattern\n") {
		t.Errorf("explore.md's tool line is not the seed's")
	}
	var found string
	for _, req := range c.Requests("Explore") {
		if o, ok := outputs(req)["g1"]; ok {
			found = o
		}
	}
	for _, f := range []string{"cmd/app/main.go", "cmd/app/main_test.go"} {
		if !strings.Contains(found, filepath.Join(cwd, filepath.FromSlash(f))) {
			t.Errorf("glob_files **/*.go = %q, want %s", found, f)
		}
	}
	if strings.Contains(found, "README.md") {
		t.Errorf("glob_files **/*.go matched README.md: %q", found)
	}
}
