package tui

import "github.com/grovecli/grove/protocol"

// The trace of an answered approval ("✔ You approved …", as Codex logs
// its approval history cell) stands where Codex puts it: right after the
// request, before the call's output. The call's entry is already on screen
// when the request comes (tool_call_begin precedes it), so the trace goes
// in just before that entry. It is built from the events (approval
// requested, then resolved), so a resumed transcript shows it where the
// live one did; the key press only puts it there sooner.

// traceState is how far a request's trace has come.
type traceState int

const (
	traceAsked traceState = iota + 1 // the user was asked: its answer gets a trace
	traceShown                       // the trace is in the transcript
)

// noteAsked records that request req was put to the user (one decided by
// policy has no request event and gets no trace: nobody answered it).
func (s *session) noteAsked(req protocol.ApprovalRequest) {
	if req.ID == "" {
		return
	}
	if s.traces == nil {
		s.traces = map[string]traceState{}
	}
	if s.traces[req.ID] == 0 {
		s.traces[req.ID] = traceAsked
	}
}

// traceAnswer puts the trace of how req was resolved (the answer d, or
// cancelled before anyone answered) into t once.
func (s *session) traceAnswer(t *threadView, req protocol.ApprovalRequest, d protocol.ReviewDecision, how protocol.ApprovalResolution) {
	if t == nil || req.ID == "" || s.traces[req.ID] != traceAsked {
		return
	}
	s.traces[req.ID] = traceShown
	text := decisionTrace(req, d)
	if how == protocol.ResolvedCancelled {
		// The turn ended (interrupt, its end, the agent closed) while the
		// request waited: the user denied nothing.
		text = "· Not answered: " + approvalSummary(req) + " (the turn stopped before an answer)"
	}
	t.insertBefore(t.toolIdx[req.CallID], &entry{kind: entryInfo, text: text})
}

// insertBefore puts e into t's transcript just before entry at (at the
// end when at is nil or not there), keeping the tool highlight on its call.
func (t *threadView) insertBefore(at, e *entry) {
	i := len(t.entries)
	for j := len(t.entries) - 1; at != nil && j >= 0; j-- {
		if t.entries[j] == at {
			i = j
			break
		}
	}
	t.entries = append(t.entries, nil)
	copy(t.entries[i+1:], t.entries[i:])
	t.entries[i] = e
	if t.toolSel >= i {
		t.toolSel++
	}
}
