package appserver

import (
	"encoding/json"
	"fmt"

	"github.com/grovecli/grove/protocol"
)

// request_user_input reaches the client as Codex's server request
// item/tool/requestUserInput ({threadId, turnId, itemId, questions,
// isBlocking}); its
// answer ({answers: {id: {answers: [...]}}}) goes back to the engine. An
// error answer, or one that cannot be read, dismisses the questions: the
// model is told the user did not answer. A request the engine resolved
// first (the turn was interrupted) is withdrawn with serverRequest/resolved.

// appUserInputParams is ToolRequestUserInputParams.
type appUserInputParams struct {
	ThreadID  string                       `json:"threadId"`
	TurnID    string                       `json:"turnId"`
	ItemID    string                       `json:"itemId"`
	Questions []protocol.UserInputQuestion `json:"questions"`
	// IsBlocking: the turn waits for the answer (grove never resolves a
	// question on its own).
	IsBlocking bool `json:"isBlocking"`
}

// requestUserInput sends the questions to the client.
func (s *Server) requestUserInput(sess *session, t *thread, req protocol.UserInputRequest) []outMsg {
	s.nextReqID++
	id := s.nextReqID
	r := req
	s.approvals[id] = &pendingApproval{sess: sess, userInput: &r}
	turnID := req.TurnID
	if turnID == "" {
		turnID = t.turnID
	}
	return []outMsg{{reqID: id, method: "item/tool/requestUserInput", params: appUserInputParams{
		ThreadID: string(req.ThreadID), TurnID: turnID, ItemID: req.CallID, Questions: req.Questions, IsBlocking: true,
	}}}
}

// userInputResolved withdraws a request the client has not answered.
func (tr *translation) userInputResolved(m protocol.UserInputResolvedMsg) {
	for id, pa := range tr.s.approvals {
		if pa.userInput != nil && pa.userInput.ID == m.Request.ID {
			delete(tr.s.approvals, id)
			tr.emit("serverRequest/resolved", map[string]any{"threadId": string(m.Request.ThreadID), "requestId": id})
		}
	}
}

// answerUserInput passes the client's answer (or its refusal) on.
func (s *Server) answerUserInput(pa *pendingApproval, msg protocol.RPCMessage) {
	var resp *protocol.UserInputResponse
	if msg.Error == nil {
		var r protocol.UserInputResponse
		if err := json.Unmarshal(msg.Result, &r); err == nil && r.Answers != nil {
			resp = &r
		} else {
			_ = s.out.notify("warning", map[string]any{"threadId": string(pa.userInput.ThreadID), "message": fmt.Sprintf("requestUserInput answer not understood (%v): treated as dismissed", err)})
		}
	}
	if err := pa.sess.eng.Submit(protocol.Op{Type: protocol.OpUserInput, UserInputID: pa.userInput.ID, UserInput: resp}); err != nil {
		_ = s.out.notify("warning", map[string]any{"threadId": string(pa.userInput.ThreadID), "message": fmt.Sprintf("requestUserInput answer: %v", err)})
	}
}

// appWebSearchItem is Codex's webSearch ThreadItem.
type appWebSearchItem struct {
	Type   string         `json:"type"` // webSearch
	ID     string         `json:"id"`
	Query  string         `json:"query"`
	Action map[string]any `json:"action,omitempty"`
}

// webSearch reports a hosted web search as a started and completed item.
func (tr *translation) webSearch(m protocol.WebSearchMsg) {
	ws := m.Call
	item := appWebSearchItem{Type: "webSearch", ID: ws.ID, Query: ws.Query}
	switch ws.Action {
	case "search":
		item.Action = map[string]any{"type": "search", "query": ws.Query}
	case "open_page":
		item.Action = map[string]any{"type": "openPage", "url": ws.URL}
		item.Query = ws.URL
	case "find_in_page":
		item.Action = map[string]any{"type": "findInPage", "url": ws.URL, "pattern": ws.Pattern}
		item.Query = ws.Pattern
	case "":
	default:
		item.Action = map[string]any{"type": "other"}
	}
	tr.t.turnItems = append(tr.t.turnItems, item)
	tr.emit("item/started", itemNote(tr.tid, tr.turnID, item, "startedAtMs"))
	tr.emit("item/completed", itemNote(tr.tid, tr.turnID, item, "completedAtMs"))
}
