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
			missing = dirGone(e.Cwd)
			seen[e.Cwd] = missing
		}
		if missing {
			gone[e.ID] = true
		}
	}
	return gone
}

// dirGone reports a directory that does not exist (tests that show
// made-up paths replace it).
var dirGone = func(dir string) bool {
	_, err := os.Stat(dir)
	return errors.Is(err, fs.ErrNotExist)
}
