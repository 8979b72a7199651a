package task

import (
	"strings"
	"testing"

	"github.com/grovecli/grove/core/model"
)

// howYouWork is the "# How you work" section of a request's instructions.
func howYouWork(req model.Request) string {
	_, s, _ := strings.Cut(req.Instructions, "# How you work\n")
	s, _, _ = strings.Cut(s, "\n# ")
	return s
}

// TestReadOnlyAgentsAreNotToldToUseToolsTheyLack: Explore and Plan see
// none of exec_command, apply_patch or update_plan, and their system
// prompt is their own (seed 004 §3.4.2: the definition's prompt alone, no
// grove sections) and names none of them; the root, which has them, is
// told in its "How you work" section.
func TestReadOnlyAgentsAreNotToldToUseToolsTheyLack(t *testing.T) {
	c := newScripted(nil)
	c.Reply = func(role string, req model.Request) model.Response {
		switch role {
		case "root":
			outs := outputs(req)
			switch {
			case outs["p1"] != "":
				return model.Response{Text: "done"}
			case outs["x1"] != "":
				return call("p1", "Task", `{"subagent_type":"Plan","prompt":"plan it","description":"plan"}`)
			}
			return call("x1", "Task", `{"subagent_type":"Explore","prompt":"look","description":"look"}`)
		case "Explore", "Plan":
			return call("c1", "complete_task", `{"result":"ok"}`)
		}
		return model.Response{}
	}
	e, root := start(t, c, setup{})
	runRoot(t, e, root, "go")

	rootSection := howYouWork(c.Requests("root")[0])
	for _, tool := range []string{"exec_command", "apply_patch", "update_plan"} {
		if !strings.Contains(rootSection, tool) {
			t.Errorf("root is not told about %s:\n%s", tool, rootSection)
		}
	}
	for _, role := range []string{"Explore", "Plan"} {
		reqs := c.Requests(role)
		if len(reqs) == 0 {
			t.Fatalf("%s never ran", role)
		}
		sys := reqs[0].Instructions
		for _, tool := range []string{"exec_command", "apply_patch", "update_plan"} {
			if strings.Contains(sys, tool) {
				t.Errorf("%s is told to use %s it does not have:\n%s", role, tool, sys)
			}
		}
		want := explorePrompt
		if role == "Plan" {
			want = planPrompt
		}
		if strings.Contains(sys, "# How you work") || strings.Contains(sys, "# Your role") || !strings.HasPrefix(sys, want[:40]) {
			t.Errorf("%s system prompt is not its definition's alone:\n%s", role, sys)
		}
	}
}
