package engine

import (
	"errors"
	"fmt"
	"sync"

	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

// warnings remembers which warnings the engine already showed (each once
// per session) and the rollout write failures of its life (Unrecorded).
type warnings struct {
	mu     sync.Mutex
	shown  map[string]bool
	failed []string // one per agent whose rollout lost lines (a full disk)
	agents map[protocol.ThreadID]bool
}

// first reports whether key is new, and remembers it.
func (w *warnings) first(key string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.shown[key] {
		return false
	}
	if w.shown == nil {
		w.shown = map[string]bool{}
	}
	w.shown[key] = true
	return true
}

// noteFailure keeps a failed rollout write of agent id (the first one
// each); any other error is no lost record.
func (w *warnings) noteFailure(id protocol.ThreadID, err error) {
	var werr *rollout.WriteError
	if !errors.As(err, &werr) {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.agents[id] {
		return
	}
	if w.agents == nil {
		w.agents = map[protocol.ThreadID]bool{}
	}
	w.agents[id] = true
	w.failed = append(w.failed, fmt.Sprintf("agent %s: %v", id, err))
}

// unrecorded lists the kept failures.
func (w *warnings) unrecorded() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.failed...)
}
