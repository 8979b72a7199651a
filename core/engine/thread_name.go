package engine

import (
	"errors"
	"strings"

	"github.com/grovecli/grove/protocol"
)

// SetThreadName sets thread id's user-facing title (Codex's thread name,
// set by an app-server client's thread/name/set) and returns it trimmed.
// The name lives in the session index, where Codex keeps it too, so a
// listed or resumed thread carries it.
func (e *Engine) SetThreadName(id protocol.ThreadID, name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", errors.New("thread name must not be empty")
	}
	t := e.thread(id)
	if t == nil {
		return "", NotFoundError{ID: id}
	}
	t.mu.Lock()
	t.name = name
	t.mu.Unlock()
	e.updateIndex(t)
	return name, nil
}
