package app

import (
	"errors"
	"log/slog"
	"strings"

	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/core/logging"
	"github.com/grovecli/grove/protocol"
)

// logEvents writes the engine's notable events (retries, approvals,
// sandbox denials the backend reported, warnings such as rollout errors,
// errors, status changes) to the debug log. It reads its own subscription promptly and ends
// when the engine closes the bus or stop is called; wait returns once it has.
// Warning events also go to onWarning.
func logEvents(eng *engine.Engine, onWarning func(string)) (stop func(), wait func()) {
	events, cancel := eng.Subscribe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range events {
			LogEvent(logging.L(), ev)
			if ev.Type == protocol.EventWarning && onWarning != nil {
				onWarning(ev.Message)
			}
		}
	}()
	return cancel, func() { <-done }
}

func LogEvent(l *slog.Logger, ev protocol.Event) {
	th := slog.String("thread", string(ev.ThreadID))
	m, err := ev.Msg()
	if err != nil {
		// A kind this build has no message type for is not logged; a
		// known kind without its payload is a bug worth a line.
		var me *protocol.MalformedEventError
		if errors.As(err, &me) && me.Missing != "" {
			l.Warn("malformed engine event", th, "err", err)
		}
		return
	}
	switch m := m.(type) {
	case protocol.StreamRetryMsg:
		l.Warn("model stream retry", th, "turn", ev.TurnID, "detail", m.Text)
	case protocol.ApprovalRequestedMsg:
		a := m.Request
		l.Info("approval requested", th, "id", a.ID, "kind", a.Kind, "command", a.Command, "dir", a.Dir, "files", len(a.Files), "reason", a.Reason, "chain", strings.Join(a.Chain, " → "))
	case protocol.ApprovalResolvedMsg:
		// A request decided by policy has no "approval requested" record
		// (no one was asked): this one says what it was.
		a := m.Request
		l.Info("approval resolved", th, "id", a.ID, "kind", a.Kind, "decision", m.Decision, "resolution", m.Resolution, "command", a.Command, "dir", a.Dir, "files", len(a.Files))
	case protocol.WarningMsg:
		l.Warn("engine warning", th, "detail", m.Text)
	case protocol.ErrorMsg:
		l.Error("engine error", th, "turn", ev.TurnID, "detail", m.Text)
	case protocol.StatusChangedMsg:
		l.Info("status", th, "status", m.Status.Kind)
	case protocol.ThreadStartedMsg:
		t := m.Thread
		l.Debug("thread started", th, "parent", string(t.ParentID), "depth", t.Depth, "source", t.Source, "agent_type", t.AgentType, "model", t.Model, "sandbox", t.Sandbox.Mode, "surface", t.Surface, "rollout", t.RolloutPath)
	case protocol.ThreadClosedMsg:
		l.Debug("thread closed", th)
	case protocol.TurnStartedMsg, protocol.TurnCompletedMsg:
		l.Debug(string(ev.Type), th, "turn", ev.TurnID)
	case protocol.ToolCallEndMsg:
		t := m.Call
		attrs := []any{th, "call", t.CallID, "tool", t.Name, "duration_ms", t.DurationMS, "is_error", t.IsError}
		if t.ExitCode != nil {
			attrs = append(attrs, "exit_code", *t.ExitCode)
		}
		if t.SandboxDenied {
			l.Warn("sandbox denial", attrs...)
			return
		}
		l.Debug("tool call", attrs...)
	case protocol.ShutdownCompleteMsg:
		l.Info("engine shutdown complete", th)
	}
}
