// Package rollouttest builds large session indexes for tests and
// benchmarks (rollout, the TUI picker, bench/).
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

// updatesPerSession is how often each generated session is re-indexed (a
// real session is, at every turn end and status change).
const updatesPerSession = 3

// GenerateIndex writes $home/session_index.jsonl with sessions root
// sessions ("session <i>: …", i = 0 is the oldest, sessions-1 the newest),
// each indexed three times with the updates of neighbouring sessions
// interleaved (so newer lines supersede older ones as in real use), and
// one child per session. It replaces an existing index.
func GenerateIndex(home string, sessions int) error {
	if err := os.MkdirAll(home, 0o700); err != nil {
		return fmt.Errorf("generate index: %w", err)
	}
	path := filepath.Join(home, rollout.IndexFile)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("generate index: %w", err)
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	line := 0
	// Step s writes update u of session s-u: session i's last update comes
	// after the first updates of sessions i+1 and i+2.
	for s := 0; s < sessions+updatesPerSession-1; s++ {
		for u := updatesPerSession - 1; u >= 0; u-- {
			i := s - u
			if i < 0 || i >= sessions {
				continue
			}
			line++
			for _, e := range entries(i, u, base.Add(time.Duration(line)*time.Second)) {
				if err := enc.Encode(e); err != nil {
					_ = f.Close()
					return fmt.Errorf("generate index: %w", err)
				}
			}
		}
	}
	if err := w.Flush(); err != nil {
		_ = f.Close()
		return fmt.Errorf("generate index %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("generate index %s: %w", path, err)
	}
	return nil
}

// SessionID is the id GenerateIndex gives session i.
func SessionID(i int) protocol.ThreadID {
	return protocol.ThreadID(fmt.Sprintf("019a%04x-0000-7000-8000-%012x", i&0xffff, i))
}

// entries are the index lines of update u of session i: the root's, and on
// the second update the child it spawned.
func entries(i, u int, at time.Time) []rollout.IndexEntry {
	id := SessionID(i)
	root := rollout.IndexEntry{
		ID: id, Cwd: fmt.Sprintf("/home/dev/src/project-%d", i%40), UpdatedAt: at,
		FirstPrompt: fmt.Sprintf("session %d: refactor the parser module and add tests for edge case %d", i, i%17),
		Note:        fmt.Sprintf("note %d.%d", i, u), ChildCount: min(u, 1),
		// Relative to the home, as AppendIndex stores paths.
		RolloutPath: fmt.Sprintf("sessions/2026/01/01/rollout-2026-01-01T00-00-00-%s.jsonl", id),
		Model:       "gpt-5.1-codex", Status: "running",
	}
	if u == updatesPerSession-1 {
		root.Status = "completed"
	}
	if u != 1 {
		return []rollout.IndexEntry{root}
	}
	child := rollout.IndexEntry{
		ID: protocol.ThreadID(fmt.Sprintf("%s-c", id)), ParentID: id, Cwd: root.Cwd, UpdatedAt: at,
		FirstPrompt: "explore the parser", RolloutPath: root.RolloutPath + ".child", AgentType: "explorer", Status: "completed",
	}
	return []rollout.IndexEntry{child, root}
}
