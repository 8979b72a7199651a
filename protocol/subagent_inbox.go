package protocol

import (
	"encoding/json"
	"fmt"
	"time"
)

// Seed 001's protocol: the client ops CreateSubagent, ListSubagents,
// CheckInbox, ReplyToSubagent and EndSubagent, and the EventMsg variants
// that answer them. The inbox surface's tools run the same operations
// and publish the same events, so a client sees the model's inbox work
// too. Names follow Codex's protocol.rs conventions for the seed's Rust
// types: variants snake_case under "type", fields snake_case, enums
// snake_case (SubagentState externally tagged, NotificationType tagged by
// "type").

// The seed's ops (Op.Type).
const (
	OpCreateSubagent  OpType = "create_subagent"
	OpListSubagents   OpType = "list_subagents"
	OpCheckInbox      OpType = "check_inbox"
	OpReplyToSubagent OpType = "reply_to_subagent"
	OpEndSubagent     OpType = "end_subagent"
)

// InboxOps lists the seed's ops.
var InboxOps = []OpType{OpCreateSubagent, OpListSubagents, OpCheckInbox, OpReplyToSubagent, OpEndSubagent}

// The seed's EventMsg variants (Event.Type), published on the parent's
// thread.
const (
	EventSubagentCreated       EventType = "subagent_created"
	EventSubagentsListResponse EventType = "subagents_list_response"
	EventInboxResponse         EventType = "inbox_response"
	EventSubagentReplySuccess  EventType = "subagent_reply_success"
	EventSubagentEnded         EventType = "subagent_ended"
)

// SubagentState is the seed's `enum SubagentState { Active, Completed,
// Error { message } }`: "active", "completed" or {"error":{"message":…}}.
type SubagentState struct {
	Kind    string // SubagentActive, SubagentCompleted or SubagentError
	Message string // the Error variant's message
}

type stateError struct {
	Message string `json:"message"`
}

// MarshalJSON writes the seed's externally tagged form.
func (s SubagentState) MarshalJSON() ([]byte, error) {
	switch s.Kind {
	case SubagentActive, SubagentCompleted:
		return json.Marshal(s.Kind)
	case SubagentError:
		return json.Marshal(map[string]stateError{"error": {Message: s.Message}})
	}
	return nil, fmt.Errorf("subagent state: unknown kind %q (want active, completed or error)", s.Kind)
}

// UnmarshalJSON reads the seed's form; anything else is an error naming it.
func (s *SubagentState) UnmarshalJSON(b []byte) error {
	var name string
	if json.Unmarshal(b, &name) == nil {
		if name != SubagentActive && name != SubagentCompleted {
			return fmt.Errorf("subagent state: unknown state %q (want \"active\", \"completed\" or {\"error\":{\"message\":…}})", name)
		}
		*s = SubagentState{Kind: name}
		return nil
	}
	var tagged map[string]stateError
	if err := json.Unmarshal(b, &tagged); err != nil {
		return fmt.Errorf("subagent state: %w", err)
	}
	e, ok := tagged["error"]
	if len(tagged) != 1 || !ok {
		return fmt.Errorf("subagent state: %s is not {\"error\":{\"message\":…}}", b)
	}
	*s = SubagentState{Kind: SubagentError, Message: e.Message}
	return nil
}

// SeedState is the sub-agent's state as the seed types it.
func (sa InboxSubagent) SeedState() SubagentState {
	if sa.State == SubagentError {
		return SubagentState{Kind: SubagentError, Message: sa.ErrorMessage}
	}
	return SubagentState{Kind: sa.State}
}

// NotificationType is the seed's `enum NotificationType { Message {
// content }, Question { content }, Completed { summary }, Error { message }
// }`, tagged by "type".
type NotificationType struct {
	Kind string // NotifyMessage, NotifyQuestion, NotifyCompleted, NotifyError
	Text string // content, summary or message, by Kind
}

// notificationField is the name of a notification kind's text field.
func notificationField(kind string) (string, error) {
	switch kind {
	case NotifyMessage, NotifyQuestion:
		return "content", nil
	case NotifyCompleted:
		return "summary", nil
	case NotifyError:
		return "message", nil
	}
	return "", fmt.Errorf("notification: unknown type %q (want message, question, completed or error)", kind)
}

// MarshalJSON writes {<content|summary|message>: text, "type": kind} (keys
// in sorted order, as the inbox tools always answered).
func (n NotificationType) MarshalJSON() ([]byte, error) {
	field, err := notificationField(n.Kind)
	if err != nil {
		return nil, err
	}
	kind, _ := json.Marshal(n.Kind)
	text, err := json.Marshal(n.Text)
	if err != nil {
		return nil, fmt.Errorf("notification text: %w", err)
	}
	return []byte(fmt.Sprintf(`{%q:%s,"type":%s}`, field, text, kind)), nil
}

// UnmarshalJSON reads the tagged form; an unknown type or a missing text
// field is an error naming it.
func (n *NotificationType) UnmarshalJSON(b []byte) error {
	var m map[string]string
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("notification: %w", err)
	}
	field, err := notificationField(m["type"])
	if err != nil {
		return err
	}
	text, ok := m[field]
	if !ok {
		return fmt.Errorf("notification: type %q has no %q field", m["type"], field)
	}
	*n = NotificationType{Kind: m["type"], Text: text}
	return nil
}

// SubagentNotification is the seed's SubagentNotification. Fields are in
// sorted key order here and below: the tool results are these types' JSON,
// byte for byte what the inbox tools answered before they were typed.
type SubagentNotification struct {
	Notification NotificationType `json:"notification"`
	Read         bool             `json:"read"`
	SubagentID   ThreadID         `json:"subagent_id"`
	Timestamp    time.Time        `json:"timestamp"`
}

// Seed is the notification as the seed types it.
func (n InboxNotification) Seed() SubagentNotification {
	return SubagentNotification{SubagentID: n.From, Timestamp: n.Timestamp.UTC(), Notification: NotificationType{Kind: n.Kind, Text: n.Text}, Read: n.Read}
}

// SubagentInfo is the seed's SubagentInfo.
type SubagentInfo struct {
	CreatedAt    time.Time     `json:"created_at"`
	ID           ThreadID      `json:"id"`
	LastActivity time.Time     `json:"last_activity"`
	State        SubagentState `json:"state"`
	Task         string        `json:"task"`
	UnreadCount  int           `json:"unread_count"`
}

// The seed's EventMsg variants as typed messages; their JSON (the tool
// results of the inbox surface) is the variant's fields.
type (
	SubagentCreatedMsg struct {
		SubagentID ThreadID `json:"subagent_id"`
	}
	SubagentsListResponseMsg struct {
		Subagents []SubagentInfo `json:"subagents"`
	}
	InboxResponseMsg struct {
		Notifications []SubagentNotification `json:"notifications"`
	}
	SubagentReplySuccessMsg struct {
		SubagentID ThreadID `json:"subagent_id"`
	}
	SubagentEndedMsg struct {
		FinalState SubagentState `json:"final_state"`
		SubagentID ThreadID      `json:"subagent_id"`
	}
)

func (SubagentCreatedMsg) Kind() EventType       { return EventSubagentCreated }
func (SubagentsListResponseMsg) Kind() EventType { return EventSubagentsListResponse }
func (InboxResponseMsg) Kind() EventType         { return EventInboxResponse }
func (SubagentReplySuccessMsg) Kind() EventType  { return EventSubagentReplySuccess }
func (SubagentEndedMsg) Kind() EventType         { return EventSubagentEnded }

func (SubagentCreatedMsg) isEventMsg()       {}
func (SubagentsListResponseMsg) isEventMsg() {}
func (InboxResponseMsg) isEventMsg()         {}
func (SubagentReplySuccessMsg) isEventMsg()  {}
func (SubagentEndedMsg) isEventMsg()         {}

// IsInboxOp reports whether t is one of the seed's ops.
func IsInboxOp(t OpType) bool {
	for _, o := range InboxOps {
		if o == t {
			return true
		}
	}
	return false
}
