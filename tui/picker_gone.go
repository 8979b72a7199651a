package tui

import (
	"errors"
	"io/fs"
	"os"

	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

// goneDirs names the sessions of a picker page whose working directory no
// longer exists (checked with the page, off the UI loop): resuming one
// works, but its agents would start in a missing directory, so the picker
// says so.
func goneDirs(entries []rollout.IndexEntry) map[protocol.ThreadID]bool {
	gone := map[protocol.ThreadID]bool{}
	seen := map[string]bool{}
	for _, e := range entries {
		if e.Cwd == "" {
			continue
		}
		missing, ok := seen[e.Cwd]
		if !ok {
			_, err := os.Stat(e.Cwd)
			missing = errors.Is(err, fs.ErrNotExist)
			seen[e.Cwd] = missing
		}
		if missing {
			gone[e.ID] = true
		}
	}
	return gone
}
