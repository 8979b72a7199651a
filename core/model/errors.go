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
}

func (e *APIError) Error() string {
	if e.StatusCode != 0 {
		return fmt.Sprintf("model provider %s (%s): HTTP %d after %d attempt(s): %s", e.Provider, e.URL, e.StatusCode, e.Attempts, e.Message)
	}
	return fmt.Sprintf("model provider %s (%s): %s after %d attempt(s)", e.Provider, e.URL, e.Message, e.Attempts)
}
