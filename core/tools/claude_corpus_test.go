package tools

import (
	"bufio"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// recordedCall is one tool_use block of a recorded Claude Code session.
type recordedCall struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// TestClaudeCorpusReplays replays the recorded public Claude Code session
// (testdata/claude_corpus/README.md): every call of a Claude Code core
// tool passes grove's schema for that tool; the read-only ones also run,
// against an empty copy of the recorded project's root, without an
// argument error. Task is the delegation surface's (seed 004), checked
// there; it is counted here so that no call goes unaccounted.
func TestClaudeCorpusReplays(t *testing.T) {
	f := openCorpus(t, "kiliman-claude-transcript-test2.jsonl")
	defer f.Close()
	r := NewRegistry()
	if err := RegisterClaude(r); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	const recordedRoot = "/Users/michael/Projects/oss/graph-monitor"
	env := &Env{ThreadID: "replay", Cwd: root}
	counts := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 4<<20)
	for sc.Scan() {
		var c recordedCall
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		counts[c.Name]++
		if c.Name == "Task" {
			continue
		}
		e, ok := r.tools[c.Name]
		if !ok {
			t.Errorf("%s (%s): grove has no tool by this name", c.ID, c.Name)
			continue
		}
		if _, err := e.validate(c.Name, c.Input); err != nil {
			t.Errorf("%s (%s): refused: %v\ninput: %s", c.ID, c.Name, err, c.Input)
			continue
		}
		switch c.Name {
		case "Read", "Glob", "Grep", "LS", "TodoWrite":
			args := json.RawMessage(strings.ReplaceAll(string(c.Input), recordedRoot, filepath.ToSlash(root)))
			res := r.Run(context.Background(), env, c.Name, args)
			if res.IsError && strings.Contains(res.Output, "invalid arguments") {
				t.Errorf("%s (%s): %s", c.ID, c.Name, res.Output)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, n := range counts {
		total += n
	}
	if total != 189 || counts["Bash"] != 63 || counts["MultiEdit"] != 4 || counts["LS"] != 4 {
		t.Errorf("the corpus is not what the README describes: %v", counts)
	}
}
