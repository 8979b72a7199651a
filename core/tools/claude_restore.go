package tools

import (
	"encoding/json"
	"path/filepath"

	"github.com/grovecli/grove/protocol"
)

// historyRestorer is a tool that keeps per-thread state a resumed thread
// must get back from the events its earlier runs recorded.
type historyRestorer interface {
	restore(thread protocol.ThreadID, cwd string, events []protocol.Event)
}

// RestoreThread gives the tools what a resumed thread did in its earlier
// runs (its rollout's events, oldest first), so that, for one, a file the
// model Read before `grove resume` may be edited after it, as in Claude
// Code, which rebuilds its read-file state from the resumed transcript.
func (r *Registry) RestoreThread(thread protocol.ThreadID, cwd string, events []protocol.Event) {
	r.mu.RLock()
	var rs []historyRestorer
	for _, name := range r.order {
		if h, ok := r.tools[name].tool.(historyRestorer); ok {
			rs = append(rs, h)
		}
	}
	r.mu.RUnlock()
	for _, h := range rs {
		h.restore(thread, cwd, events)
	}
}

// restore marks as seen every file a successful Read, Write, Edit,
// MultiEdit or NotebookEdit of the thread touched (its own calls, and
// those a fork inherited from its source), as of the moment the call ended: the
// file's size then is not recorded, so a file is stale when it was
// modified after that moment (Claude Code's own test on a resumed read).
func (t claudeRead) restore(thread protocol.ThreadID, cwd string, events []protocol.Event) {
	for _, ev := range events {
		if (ev.Type != protocol.EventToolCallEnd && ev.Type != protocol.EventInheritedToolCall) || ev.Tool == nil || ev.Tool.IsError {
			continue
		}
		var a struct {
			FilePath     string `json:"file_path"`
			NotebookPath string `json:"notebook_path"`
			Command      string `json:"command"`
		}
		if json.Unmarshal([]byte(ev.Tool.Arguments), &a) != nil {
			continue
		}
		switch ev.Tool.Name {
		case ClaudeRead, ClaudeWrite, ClaudeEdit, ClaudeMultiEdit, ClaudeNotebookEdit:
		case ClaudeBash:
			// A view of a file with Bash; the directory the command ran in
			// is not recorded, so only an absolute path counts.
			a.FilePath, a.NotebookPath = "", ""
			if f, ok := viewedFile(a.Command); ok && filepath.IsAbs(f) {
				a.FilePath = f
			}
		default:
			continue
		}
		if a.FilePath+a.NotebookPath == "" {
			continue
		}
		if a.FilePath == "" {
			a.FilePath = a.NotebookPath
		}
		t.reads.saw(thread, resolvePath(cwd, a.FilePath), readStamp{modTime: ev.Timestamp, size: sizeUnknown})
	}
}
