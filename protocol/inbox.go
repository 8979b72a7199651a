package protocol

import "time"

// EventInbox records a change to a thread's sub-agent inbox (seed 001): a
// sub-agent registered or changing state, a notification posted, notifications
// read or announced. The thread's rollout holds every change, so a resumed
// session restores its inbox exactly.
const EventInbox EventType = "inbox"

// Notification kinds a sub-agent posts to its parent's inbox.
const (
	NotifyMessage   = "message"
	NotifyQuestion  = "question"
	NotifyCompleted = "completed"
	NotifyError     = "error"
)

// Sub-agent states in an inbox.
const (
	SubagentActive    = "active"
	SubagentCompleted = "completed"
	SubagentError     = "error"
)

// InboxNotification is one message from a sub-agent to its parent.
type InboxNotification struct {
	// Seq numbers the inbox's notifications from 1, in arrival order.
	Seq       int       `json:"seq"`
	From      ThreadID  `json:"subagent_id"`
	Timestamp time.Time `json:"timestamp"`
	Kind      string    `json:"type"`
	// Text is the content (message, question), summary (completed) or
	// message (error).
	Text string `json:"text"`
	Read bool   `json:"read"`
	// Announced: the parent has been told it arrived (woken for it).
	Announced bool `json:"announced,omitempty"`
}

// InboxSubagent is a sub-agent as its parent's inbox tracks it.
type InboxSubagent struct {
	ID           ThreadID  `json:"id"`
	Task         string    `json:"task"`
	State        string    `json:"state"`
	ErrorMessage string    `json:"error_message,omitempty"`
	CreatedAt    time.Time `json:"created_at"`
	LastActivity time.Time `json:"last_activity"`
}

// InboxChange is an inbox event's payload: exactly one field is set.
type InboxChange struct {
	Subagent     *InboxSubagent     `json:"subagent,omitempty"`
	Notification *InboxNotification `json:"notification,omitempty"`
	// Read and Announced list the Seq of notifications that became read or
	// announced.
	Read      []int `json:"read,omitempty"`
	Announced []int `json:"announced,omitempty"`
}
