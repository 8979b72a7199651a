package main

import (
	"os"
	"sync"

	"github.com/grovecli/grove/core/logging"
)

// liveScratch holds the demo scratch projects this process created and
// has not removed yet: each session removes its own when it shuts down, and
// run removes whatever is left (app-server and ACP sessions) on exit.
var liveScratch struct {
	mu   sync.Mutex
	dirs map[string]bool
}

func registerScratch(dir string) {
	liveScratch.mu.Lock()
	defer liveScratch.mu.Unlock()
	if liveScratch.dirs == nil {
		liveScratch.dirs = map[string]bool{}
	}
	liveScratch.dirs[dir] = true
}

// removeScratch deletes one demo scratch project. Only directories that
// NewScratch made in this process are ever removed.
func removeScratch(dir string) {
	liveScratch.mu.Lock()
	known := liveScratch.dirs[dir]
	delete(liveScratch.dirs, dir)
	liveScratch.mu.Unlock()
	if !known {
		return
	}
	if err := os.RemoveAll(dir); err != nil {
		logging.L().Warn("demo: remove scratch directory", "dir", dir, "err", err)
		return
	}
	logging.L().Info("demo: scratch directory removed", "dir", dir)
}

// removeAllScratch deletes every demo scratch project still registered.
func removeAllScratch() {
	liveScratch.mu.Lock()
	dirs := make([]string, 0, len(liveScratch.dirs))
	for d := range liveScratch.dirs {
		dirs = append(dirs, d)
	}
	liveScratch.mu.Unlock()
	for _, d := range dirs {
		removeScratch(d)
	}
}
