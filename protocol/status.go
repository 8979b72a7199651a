package protocol

import (
	"encoding/json"
	"fmt"
)

// StatusKind names an AgentStatus state.
type StatusKind string

const (
	StatusPendingInit StatusKind = "pending_init"
	StatusRunning     StatusKind = "running"
	StatusInterrupted StatusKind = "interrupted"
	StatusShutdown    StatusKind = "shutdown"
	StatusNotFound    StatusKind = "not_found"
	StatusCompleted   StatusKind = "completed"
	StatusErrored     StatusKind = "errored"
)

// AgentStatus is wire-compatible with Codex: a bare string for the simple
// states, {"completed": "<last message>"|null} or {"errored": "<msg>"}.
type AgentStatus struct {
	Kind StatusKind
	// Message is the last agent message (completed) or the error (errored).
	// HasMessage distinguishes {"completed": null} from {"completed": ""}.
	Message    string
	HasMessage bool
}

// Convenience constructors.
func PendingInit() AgentStatus { return AgentStatus{Kind: StatusPendingInit} }
func Running() AgentStatus     { return AgentStatus{Kind: StatusRunning} }
func Interrupted() AgentStatus { return AgentStatus{Kind: StatusInterrupted} }
func Shutdown() AgentStatus    { return AgentStatus{Kind: StatusShutdown} }
func NotFound() AgentStatus    { return AgentStatus{Kind: StatusNotFound} }
func Completed(msg string, ok bool) AgentStatus {
	return AgentStatus{Kind: StatusCompleted, Message: msg, HasMessage: ok}
}
func Errored(msg string) AgentStatus {
	return AgentStatus{Kind: StatusErrored, Message: msg, HasMessage: true}
}

// IsFinal reports whether the status is one a waiter stops on:
// completed, errored, shutdown or not_found.
func (s AgentStatus) IsFinal() bool {
	switch s.Kind {
	case StatusCompleted, StatusErrored, StatusShutdown, StatusNotFound:
		return true
	}
	return false
}

// IsActive reports whether the thread holds a slot (running or pending).
func (s AgentStatus) IsActive() bool {
	return s.Kind == StatusPendingInit || s.Kind == StatusRunning
}

// String renders the status for humans.
func (s AgentStatus) String() string {
	switch s.Kind {
	case StatusCompleted, StatusErrored:
		if s.HasMessage && s.Message != "" {
			return fmt.Sprintf("%s: %s", s.Kind, s.Message)
		}
	}
	return string(s.Kind)
}

// MarshalJSON writes the Codex wire form.
func (s AgentStatus) MarshalJSON() ([]byte, error) {
	switch s.Kind {
	case StatusCompleted, StatusErrored:
		var v any
		if s.HasMessage {
			v = s.Message
		}
		return json.Marshal(map[string]any{string(s.Kind): v})
	case "":
		return json.Marshal(string(StatusPendingInit))
	default:
		return json.Marshal(string(s.Kind))
	}
}

// UnmarshalJSON reads the Codex wire form.
func (s *AgentStatus) UnmarshalJSON(b []byte) error {
	var str string
	if err := json.Unmarshal(b, &str); err == nil {
		switch StatusKind(str) {
		case StatusPendingInit, StatusRunning, StatusInterrupted, StatusShutdown, StatusNotFound:
			*s = AgentStatus{Kind: StatusKind(str)}
			return nil
		case StatusCompleted:
			*s = AgentStatus{Kind: StatusCompleted}
			return nil
		}
		return fmt.Errorf("unknown agent status %q", str)
	}
	var m map[string]*string
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("agent status: %w", err)
	}
	for k, v := range m {
		kind := StatusKind(k)
		if kind != StatusCompleted && kind != StatusErrored {
			return fmt.Errorf("unknown agent status %q", k)
		}
		*s = AgentStatus{Kind: kind}
		if v != nil {
			s.Message, s.HasMessage = *v, true
		}
		return nil
	}
	return fmt.Errorf("empty agent status object")
}
