package protocol

// EventSubagentActivity is seed 004 §5.2's SubagentActivity: what a Task
// sub-agent is doing, published on its parent's thread for UIs (the
// sub-agent's own thread events carry the details too).
const EventSubagentActivity EventType = "subagent_activity"

// SubagentEventType is seed 004's SubagentEventType, SCREAMING_SNAKE_CASE
// on the wire.
type SubagentEventType string

// The event types (seed 004 §5.2).
const (
	ActivityStarted          SubagentEventType = "STARTED"
	ActivityCompleted        SubagentEventType = "COMPLETED"
	ActivityError            SubagentEventType = "ERROR"
	ActivityTurnStart        SubagentEventType = "TURN_START"
	ActivityTurnComplete     SubagentEventType = "TURN_COMPLETE"
	ActivityToolCallStart    SubagentEventType = "TOOL_CALL_START"
	ActivityToolCallEnd      SubagentEventType = "TOOL_CALL_END"
	ActivityThoughtChunk     SubagentEventType = "THOUGHT_CHUNK"
	ActivityGracePeriodStart SubagentEventType = "GRACE_PERIOD_START"
	ActivityGracePeriodEnd   SubagentEventType = "GRACE_PERIOD_END"
)

// SubagentActivityEvent is seed 004's SubagentActivityEvent, with its
// field names.
type SubagentActivityEvent struct {
	AgentID   ThreadID          `json:"agent_id"`
	AgentType string            `json:"agent_type"`
	EventType SubagentEventType `json:"event_type"`
	Data      map[string]any    `json:"data"`
}

// SubagentProgress is seed 004's progress record (TURN_START and
// TURN_COMPLETE data["progress"]).
type SubagentProgress struct {
	TurnsCompleted int `json:"turns_completed"`
	MaxTurns       int `json:"max_turns"`
	ElapsedSeconds int `json:"elapsed_seconds"`
	MaxSeconds     int `json:"max_seconds"`
}

// SubagentActivityMsg is the event message of a SubagentActivityEvent.
type SubagentActivityMsg struct{ Activity SubagentActivityEvent }

func (SubagentActivityMsg) Kind() EventType { return EventSubagentActivity }
func (SubagentActivityMsg) isEventMsg()     {}
