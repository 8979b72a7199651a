package appserver

import (
	"encoding/json"
	"fmt"

	"github.com/grovecli/grove/protocol"
)

// Seed 001's ops and events, and seed 004's SubagentActivity, over the
// app-server in the shapes Codex's v1 app-server gave its protocol: a
// request per op (createSubagent, …: the thread and the op's fields)
// answered with the op's EventMsg, and every such event of a loaded thread
// as a `codex/event/<type>` notification {id, msg, conversationId} —
// including the answers to the model's own inbox tool calls, so a client
// sees those too.

// inboxMethods are the grove-only methods of seed 001's ops.
var inboxMethods = map[string]protocol.OpType{
	"createSubagent":  protocol.OpCreateSubagent,
	"listSubagents":   protocol.OpListSubagents,
	"checkInbox":      protocol.OpCheckInbox,
	"replyToSubagent": protocol.OpReplyToSubagent,
	"endSubagent":     protocol.OpEndSubagent,
}

// AppSubagentOpParams are an inbox method's params: the thread
// (threadId, as every thread method) and the seed op's own fields.
type AppSubagentOpParams struct {
	ThreadID   string `json:"threadId"`
	Task       string `json:"task"`
	SubagentID string `json:"subagent_id"`
	Message    string `json:"message"`
	MarkAsRead *bool  `json:"mark_as_read"`
}

// inboxOp runs one of seed 001's ops on a loaded thread. The op's client
// id is the request's id, so the event it publishes names the request.
func (s *Server) inboxOp(reqID json.RawMessage, method string, p AppSubagentOpParams) (any, *protocol.RPCError) {
	t, rerr := s.loadedThread(p.ThreadID)
	if rerr != nil {
		return nil, rerr
	}
	op := protocol.Op{
		Type: inboxMethods[method], ThreadID: t.info.ID, ClientID: requestIDText(reqID),
		Task: p.Task, SubagentID: protocol.ThreadID(p.SubagentID), Message: p.Message, MarkAsRead: p.MarkAsRead,
	}
	m, err := t.sess.eng.SurfaceOp(op)
	if err != nil {
		return nil, rpcError(protocol.RPCInvalidParams, "invalid params: %v", err)
	}
	msg, err := taggedMsg(m)
	if err != nil {
		return nil, rpcError(protocol.RPCInternalError, "%s: %v", method, err)
	}
	return msg, nil
}

// requestIDText is a request id as text: a string id unquoted, a number
// as written.
func requestIDText(id json.RawMessage) string {
	var s string
	if json.Unmarshal(id, &s) == nil {
		return s
	}
	return string(id)
}

// taggedMsg is an EventMsg as Codex serializes one: its fields and
// "type" (SubagentActivity's are its SubagentActivityEvent's).
func taggedMsg(m protocol.EventMsg) (map[string]json.RawMessage, error) {
	var fields any = m
	if a, ok := m.(protocol.SubagentActivityMsg); ok {
		fields = a.Activity
	}
	b, err := json.Marshal(fields)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", m.Kind(), err)
	}
	out := map[string]json.RawMessage{}
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("encode %s: %w", m.Kind(), err)
	}
	kind, _ := json.Marshal(m.Kind())
	out["type"] = kind
	return out, nil
}

// legacyEvent emits m as Codex's v1 `codex/event/<type>` notification:
// id is the op's client id (the request id) or else the turn's.
func (tr *translation) legacyEvent(m protocol.EventMsg) {
	msg, err := taggedMsg(m)
	if err != nil {
		tr.emit("warning", map[string]any{"threadId": tr.tid, "message": err.Error()})
		return
	}
	id := tr.ev.TurnID
	if len(tr.ev.ClientIDs) > 0 {
		id = tr.ev.ClientIDs[0]
	}
	tr.emit("codex/event/"+string(m.Kind()), map[string]any{"id": id, "msg": msg, "conversationId": tr.tid})
}
