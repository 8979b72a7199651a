package engine

import (
	"encoding/json"
	"time"

	"github.com/grovecli/grove/protocol"
)

// activity publishes seed 004's SubagentActivity event about child t on
// its parent's thread and records it there, for a child whose surface
// asked for them (ChildSpec.Activity). Callers must not hold t.mu.
func (e *Engine) activity(t *Thread, typ protocol.SubagentEventType, data map[string]any) {
	e.publishActivity(t, typ, data, true)
}

// thoughtChunk is THOUGHT_CHUNK {text}: reasoning child t's model
// streams. Live only, as the child's own reasoning_delta: the reasoning
// itself is in the child's history and rollout.
func (e *Engine) thoughtChunk(t *Thread, text string) {
	e.publishActivity(t, protocol.ActivityThoughtChunk, map[string]any{"text": text}, false)
}

func (e *Engine) publishActivity(t *Thread, typ protocol.SubagentEventType, data map[string]any, record bool) {
	t.mu.Lock()
	on, agentType, parentID := t.run.activity, t.agentType, t.parentID
	t.mu.Unlock()
	if !on {
		return
	}
	p := e.thread(parentID)
	if p == nil {
		return
	}
	if data == nil {
		data = map[string]any{}
	}
	ev := protocol.SubagentActivityEvent{AgentID: t.id, AgentType: agentType, EventType: typ, Data: data}
	msg := protocol.NewEvent(p.id, "", protocol.SubagentActivityMsg{Activity: ev})
	if record {
		p.publish(msg)
	} else {
		e.bus.Publish(msg)
	}
}

// progress is the TURN_START / TURN_COMPLETE data of a step.
func progress(steps int, lim Limits, started time.Time) map[string]any {
	return map[string]any{"progress": protocol.SubagentProgress{
		TurnsCompleted: steps, MaxTurns: lim.MaxSteps,
		ElapsedSeconds: int(time.Since(started).Seconds()), MaxSeconds: int(lim.MaxTime.Seconds()),
	}}
}

// argumentsValue is a tool call's arguments as JSON (the seed's data
// carries them as a value), or the raw text when they do not parse.
func argumentsValue(raw string) any {
	var v any
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		return raw
	}
	return v
}
