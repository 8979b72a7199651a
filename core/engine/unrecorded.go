package engine

import "fmt"

// recordFailed returns the rollout write failure that left lines of this
// thread unrecorded (a full disk), nil while everything is on disk.
func (t *Thread) recordFailed() error {
	if rec := t.recorder(); rec != nil {
		return rec.Failed()
	}
	return nil
}

// unrecordedMessage is the turn's error when its record could not be kept:
// what failed, what it means for a resume, and what to do.
func unrecordedMessage(err error) string {
	return fmt.Sprintf("stopped: this session can no longer be recorded (%v); the lines not recorded would be missing after a resume, so no further model call was made. Free space and resume the session: it continues from the last recorded line.", err)
}

// Unrecorded lists the rollout write failures of this engine's life, one
// per agent: what a session that ends now could not keep. A front end that
// reports success must check it (grove exec exits non-zero).
func (e *Engine) Unrecorded() []string {
	return e.warnings.unrecorded()
}
