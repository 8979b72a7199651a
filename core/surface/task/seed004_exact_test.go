package task

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/grovecli/grove/core/model"
)

// TestSeed004ExactTexts: §3.0's OutputValidationError wording for a
// complete_task value that breaks the schema; §3.4.2's result texts for
// max_turns and a cancelled run (TestInterruptingTheCallerAbortsASyncTask
// checks the latter's duration).
func TestSeed004ExactTexts(t *testing.T) {
	cwd := project(t, map[string]string{"reviewer.yaml": reviewerYAML})
	c := newScripted(nil)
	c.Reply = func(role string, req model.Request) model.Response {
		switch role {
		case "root":
			if _, ok := outputs(req)["t1"]; ok {
				return model.Response{Text: "reviewed"}
			}
			return call("t1", "Task", `{"subagent_type":"code-reviewer","prompt":"be strict","description":"review","inputs":{"file_path":"main.go","review_focus":"errors"}}`)
		case "code-reviewer":
			if outputs(req)["c1"] != "" {
				return call("c2", "complete_task", `{"review_report":{"summary":"ok","issues":[]}}`)
			}
			return call("c1", "complete_task", `{"review_report":{"summary":"missing issues"}}`)
		}
		return model.Response{Text: "?"}
	}
	e, root := start(t, c, setup{cwd: cwd})
	runRoot(t, e, root, "go")
	out := ""
	for _, req := range c.Requests("code-reviewer") {
		if o, ok := outputs(req)["c1"]; ok {
			out = o
		}
	}
	if !strings.HasPrefix(out, "Output validation failed: ") || !strings.Contains(out, "issues") {
		t.Errorf("schema violation = %q, want seed 004's OutputValidationError", out)
	}
}

// TestSeed004BaseDirAndResume: a definition's baseDir is the agent's
// working directory (and ${cwd}); a resumed Task is a new agent-<uuid>
// that continues the previous agent's transcript.
func TestSeed004BaseDirAndResume(t *testing.T) {
	def := "agentType: sub\nwhenToUse: works in sub\nbaseDir: sub\npromptConfig:\n  systemPrompt: work in ${cwd}\n"
	cwd := project(t, map[string]string{"sub.yaml": def})
	if err := os.Mkdir(filepath.Join(cwd, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	c := newScripted(nil)
	c.Reply = func(role string, req model.Request) model.Response {
		if role == "root" {
			outs := outputs(req)
			switch {
			case outs["t2"] != "":
				return model.Response{Text: "done"}
			case outs["t1"] != "":
				return call("t2", "Task", fmt.Sprintf(`{"subagent_type":"sub","prompt":"and again","description":"again","resume":%q}`, agentID(outs["t1"])))
			}
			return call("t1", "Task", `{"subagent_type":"sub","prompt":"remember zebra","description":"first"}`)
		}
		return call("d", "complete_task", `{"result":"ok"}`)
	}
	e, root := start(t, c, setup{cwd: cwd, approveWorkdirs: true})
	runRoot(t, e, root, "go")
	first, second := agentID(rawOutput(c, "t1")), agentID(rawOutput(c, "t2"))
	if !strings.HasPrefix(first, "agent-") || !strings.HasPrefix(second, "agent-") || first == second {
		t.Fatalf("agent ids %q, %q: a resume must be a new agent-<uuid>", first, second)
	}
	reqs := c.Requests("sub")
	if len(reqs) < 2 {
		t.Fatalf("sub ran %d times", len(reqs))
	}
	want := filepath.Join(cwd, "sub")
	if reqs[0].Instructions != "work in "+want {
		t.Errorf("system prompt %q, want the definition's with ${cwd} = %s", reqs[0].Instructions, want)
	}
	var resumed []string
	for _, it := range reqs[len(reqs)-1].Items {
		resumed = append(resumed, it.Content)
	}
	if all := strings.Join(resumed, "\n"); !strings.Contains(all, "remember zebra") || !strings.Contains(all, "and again") {
		t.Errorf("the resumed agent does not continue the transcript: %q", all)
	}
	for _, ti := range e.Threads() {
		if string(ti.ID) == first || string(ti.ID) == second {
			if ti.Cwd != want {
				t.Errorf("agent %s runs in %s, want baseDir %s", ti.ID, ti.Cwd, want)
			}
		}
	}
}

// TestDurationSecondsIsF32: seed 004 §3.6.1/§3.6.2 (clauses 004-25, 004-45)
// serialise `duration.as_secs_f32()`: serde_json prints an f32's shortest
// digits, so a 1.234567891 s run is 1.2345679, not Go's float64 digits.
func TestDurationSecondsIsF32(t *testing.T) {
	for d, want := range map[time.Duration]string{
		1234567891 * time.Nanosecond: `{"duration_seconds":1.2345679}`,
		1500 * time.Millisecond:      `{"duration_seconds":1.5}`,
		0:                            `{"duration_seconds":0}`,
	} {
		b, err := json.Marshal(map[string]any{"duration_seconds": durationSeconds(d)})
		if err != nil || string(b) != want {
			t.Errorf("%v: %s (%v), want %s", d, b, err, want)
		}
	}
}
