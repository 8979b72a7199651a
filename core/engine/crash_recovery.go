package engine

import (
	"fmt"
	"strings"

	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

// AbortedByExit is the output recorded for a tool call that was still
// running when grove died (kill -9, a crash, power loss).
const AbortedByExit = "aborted: grove exited before this call finished"

// crashRepair is what a rollout left by a dead grove needs before its
// thread can continue: the turn that was running is closed as interrupted,
// every call without an output gets one, and the model is told.
type crashRepair struct {
	turnID string // the turn left open ("" when only the status was running)
	// outputs answer, in call order, the calls that have no output item:
	// the real output when the call had finished (its tool_call_end event
	// is in the file), AbortedByExit otherwise.
	outputs []protocol.Item
	aborted []string // "name (call id)" of the calls that never finished
	notice  protocol.Item
}

// planCrashRepair inspects a rollout read back in full. It returns nil when
// the thread ended cleanly (every turn completed, no call unanswered).
func planCrashRepair(sess *rollout.Session) *crashRepair {
	openTurn, sawOpen := "", false
	finished := map[string]string{} // call id -> output of a tool_call_end event
	for _, ev := range sess.Events {
		switch ev.Type {
		case protocol.EventTurnStarted:
			openTurn, sawOpen = ev.TurnID, true
		case protocol.EventTurnCompleted:
			openTurn, sawOpen = "", false
		case protocol.EventToolCallEnd:
			if ev.Tool != nil && ev.Tool.CallID != "" {
				finished[ev.Tool.CallID] = ev.Tool.Output
			}
		}
	}
	running := sess.LastStatus != nil && (sess.LastStatus.Kind == protocol.StatusRunning || sess.LastStatus.Kind == protocol.StatusPendingInit)
	answered := map[string]bool{}
	for _, it := range sess.Items {
		if it.Type == protocol.ItemFunctionCallOutput {
			answered[it.CallID] = true
		}
	}
	r := &crashRepair{turnID: openTurn}
	for _, it := range sess.Items {
		if it.Type != protocol.ItemFunctionCall || answered[it.CallID] {
			continue
		}
		answered[it.CallID] = true // a duplicated call id is answered once
		out, ok := finished[it.CallID]
		if !ok {
			out = AbortedByExit
			r.aborted = append(r.aborted, fmt.Sprintf("%s (call %s)", it.Name, it.CallID))
		}
		r.outputs = append(r.outputs, protocol.FunctionCallOutput(it.CallID, out))
	}
	if !sawOpen && !running && len(r.outputs) == 0 {
		return nil
	}
	msg := "[grove] Your previous turn was interrupted: grove exited (it was killed or crashed) before the turn finished."
	if len(r.aborted) > 0 {
		msg += " These tool calls were still running and were aborted; they may have partly run, so check their effects before relying on them: " + strings.Join(r.aborted, ", ") + "."
	}
	if len(r.outputs) > len(r.aborted) {
		msg += " Calls that had finished keep their real output."
	}
	r.notice = protocol.GroveNotice(msg)
	return r
}

// items is what the repair adds to the thread's history.
func (r *crashRepair) items() []protocol.Item {
	return append(append([]protocol.Item(nil), r.outputs...), r.notice)
}

// repairAfterCrash closes an interrupted turn left in a rollout by a dead
// grove: it appends the missing call outputs, the notice for the model, the
// turn_completed marker, an interrupted status and a warning to the file
// (fsynced), and applies them to sess. A second run finds nothing to do.
// It returns the warning, "" when the rollout needed no repair.
func repairAfterCrash(sess *rollout.Session) (string, error) {
	r := planCrashRepair(sess)
	if r == nil {
		return "", nil
	}
	rec, err := rollout.OpenAppend(sess.Path)
	if err != nil {
		return "", fmt.Errorf("repair interrupted turn: %w", err)
	}
	warning := "the last turn was interrupted: grove exited before it finished"
	if len(r.aborted) > 0 {
		warning += fmt.Sprintf("; %d running tool call(s) recorded as aborted", len(r.aborted))
	}
	st := protocol.Interrupted()
	items := r.items()
	events := []protocol.Event{
		protocol.NewEvent(sess.Meta.ID, r.turnID, protocol.TurnCompletedMsg{Outcome: &st}),
		protocol.NewEvent(sess.Meta.ID, "", protocol.StatusChangedMsg{Status: st}),
		protocol.NewEvent(sess.Meta.ID, r.turnID, protocol.WarningMsg{Text: warning}),
	}
	for _, it := range items {
		if err == nil {
			err = rec.AppendItem(it)
		}
	}
	for _, ev := range events {
		if err == nil {
			err = rec.AppendEvent(ev)
		}
	}
	if err == nil {
		err = rec.Sync()
	}
	if cerr := rec.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("repair interrupted turn: %w", err)
	}
	sess.Items = append(sess.Items, items...)
	sess.Events = append(sess.Events, events...)
	sess.LastStatus = &st
	return warning, nil
}
