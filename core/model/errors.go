package model

import (
	"errors"
	"fmt"
)

var (
	// ErrModelsUnavailable: the model list cannot be fetched right now.
	ErrModelsUnavailable = errors.New("model list temporarily unavailable")
	// ErrModelsUnsupported: the provider offers no model list.
	ErrModelsUnsupported = errors.New("provider has no model list")
)

// APIError is a failed call after retries: it names the provider, URL and
// HTTP status (never the key).
type APIError struct {
	Provider   string
	URL        string
	StatusCode int // 0 when the failure was not an HTTP status (reset, drop)
	Message    string
	Attempts   int
	// ContextWindowExceeded: the provider refused the request as longer
	// than the model's context window; errors.Is(err,
	// ErrContextWindowExceeded) reports it.
	ContextWindowExceeded bool
}

// ErrContextWindowExceeded matches (errors.Is) a call the provider refused
// because the conversation no longer fits the model's context window.
var ErrContextWindowExceeded = errors.New("context window exceeded")

// Is makes errors.Is(err, ErrContextWindowExceeded) true for such a refusal.
func (e *APIError) Is(target error) bool {
	return target == ErrContextWindowExceeded && e.ContextWindowExceeded
}

func (e *APIError) Error() string {
	if e.StatusCode != 0 {
		return fmt.Sprintf("model provider %s (%s): HTTP %d after %d attempt(s): %s", e.Provider, e.URL, e.StatusCode, e.Attempts, e.Message)
	}
	return fmt.Sprintf("model provider %s (%s): %s after %d attempt(s)", e.Provider, e.URL, e.Message, e.Attempts)
}
