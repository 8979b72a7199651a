// Package rollouttest builds large session indexes for benchmarks.
package rollouttest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

// GenerateIndex writes an index of n root sessions, each updated three
// times (as a real session is while it runs), plus two children each.
func GenerateIndex(home string, n int) error {
	if err := os.MkdirAll(home, 0o700); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(home, rollout.IndexFile))
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < n; i++ {
		id := protocol.ThreadID(fmt.Sprintf("0199%04x-0000-7000-8000-%012x", i%0xffff, i))
		for u := 0; u < 3; u++ {
			e := rollout.IndexEntry{
				ID: id, Cwd: fmt.Sprintf("/home/dev/src/project-%d", i%40), UpdatedAt: base.Add(time.Duration(i*3+u) * time.Second),
				FirstPrompt: fmt.Sprintf("session %d: refactor the parser module and add tests for edge case %d", i, u),
				Note:        fmt.Sprintf("note %d", i), ChildCount: u, RolloutPath: fmt.Sprintf("/home/dev/.grove/sessions/r-%d.jsonl", i),
				Model: "gpt-5.1-codex", Status: "completed",
			}
			if err := enc.Encode(e); err != nil {
				return err
			}
			if u == 1 {
				child := rollout.IndexEntry{ID: protocol.ThreadID(fmt.Sprintf("%s-c%d", id, u)), ParentID: id, UpdatedAt: e.UpdatedAt, AgentType: "worker"}
				if err := enc.Encode(child); err != nil {
					return err
				}
			}
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}
