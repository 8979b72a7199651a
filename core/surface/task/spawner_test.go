package task

import (
	"encoding/json"
	"testing"

	"github.com/grovecli/grove/core/tools"
)

// A Task call starts a sub-agent (the engine reserves its max_threads slot
// in call order) unless it resumes one, which takes no new slot.
func TestTaskSpawnsUnlessItResumes(t *testing.T) {
	var tool tools.Tool = &taskTool{}
	sp, ok := tool.(tools.Spawner)
	if !ok {
		t.Fatal("the Task tool is not a tools.Spawner")
	}
	for _, c := range []struct {
		args string
		want bool
	}{
		{`{"description":"d","prompt":"p","subagent_type":"Explore"}`, true},
		{`{"description":"d","prompt":"p","subagent_type":"Explore","resume":"01a2"}`, false},
		{`{"description":"d","prompt":"p","resume":"  "}`, true},
		{`not json`, false},
	} {
		if got := sp.SpawnsAgent(json.RawMessage(c.args)); got != c.want {
			t.Errorf("SpawnsAgent(%s) = %v, want %v", c.args, got, c.want)
		}
	}
}
