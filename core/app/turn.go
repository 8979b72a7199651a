package app

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/grovecli/grove/protocol"
)

// Turn is one user turn on a thread of the session, with the settings
// every front end may change for it.
type Turn struct {
	// Thread is the thread to run on; "" is the root.
	Thread protocol.ThreadID
	Text   string
	Items  []protocol.InputItem
	// ClientID is echoed in the turn's events (the app-server matches
	// its turn/start answers by it).
	ClientID string
	// Settings apply from this turn on: cwd, model, reasoning effort and
	// summary, approval policy, sandbox, output schema. nil: unchanged.
	Settings *protocol.TurnOverrides
	// Steer says the input is for the running turn (the app-server's
	// turn/steer): it is refused when the thread runs none, so it never
	// starts a turn its sender did not ask for, and it carries no
	// Settings (a running turn keeps the ones it started with). Without
	// Steer the input starts a turn on an idle thread and, on a busy one,
	// joins the running turn as the engine hands every input: the TUI's
	// message typed while its agent works.
	Steer bool
}

// TurnTarget is what checked turns and settings are submitted to: the
// session's engine, or a front end's stand-in for it in its tests.
type TurnTarget interface {
	Submit(op protocol.Op) error
	Info(id protocol.ThreadID) (protocol.ThreadInfo, bool)
}

// CheckTurnSettings refuses settings grove cannot honour, naming the
// field: a turn must never run under looser settings than it asked for.
func CheckTurnSettings(o *protocol.TurnOverrides) error {
	if o == nil {
		return nil
	}
	if o.Cwd != "" && !filepath.IsAbs(o.Cwd) {
		return fmt.Errorf("cwd: %q is not an absolute path", o.Cwd)
	}
	if o.ApprovalPolicy != "" && !o.ApprovalPolicy.Valid() {
		return fmt.Errorf("approvalPolicy: unknown policy %q (untrusted, on-request, on-failure, never)", o.ApprovalPolicy)
	}
	if o.Sandbox != nil {
		if !o.Sandbox.Mode.Valid() {
			return fmt.Errorf("sandbox: unknown mode %q (read-only, workspace-write, danger-full-access)", o.Sandbox.Mode)
		}
		for _, r := range o.Sandbox.WritableRoots {
			if !filepath.IsAbs(r) {
				return fmt.Errorf("sandbox.writableRoots: %q is not an absolute path", r)
			}
		}
	}
	if o.ReasoningEffort != "" && !protocol.ReasoningEfforts[o.ReasoningEffort] {
		return fmt.Errorf("effort: unknown value %q (none, minimal, low, medium, high, xhigh)", o.ReasoningEffort)
	}
	if o.ReasoningSummary != "" && !protocol.ReasoningSummaries[o.ReasoningSummary] {
		return fmt.Errorf("summary: unknown value %q (auto, concise, detailed, none)", o.ReasoningSummary)
	}
	if len(o.OutputSchema) > 0 {
		var obj map[string]any
		if err := json.Unmarshal(o.OutputSchema, &obj); err != nil {
			return fmt.Errorf("outputSchema: not a JSON Schema object")
		}
	}
	return nil
}

// Turn starts (or steers) a turn: the settings are checked first, then
// the input goes to the engine.
func (s *Session) Turn(t Turn) error { return SubmitTurn(s.eng, s.root, t) }

// Configure changes settings of a thread between turns — the TUI's
// /model and approval modes, ACP's session/set_model and set_mode — checked
// as a turn's are (ChangeSettings says what may change).
func (s *Session) Configure(thread protocol.ThreadID, o protocol.TurnOverrides) error {
	return SubmitSettings(s.eng, s.root, thread, o)
}

// SubmitTurn is Session.Turn on any target; root is the thread "" names.
func SubmitTurn(e TurnTarget, root protocol.ThreadID, t Turn) error {
	if err := CheckTurnSettings(t.Settings); err != nil {
		return fmt.Errorf("turn settings: %w", err)
	}
	id := t.Thread
	if id == "" {
		id = root
	}
	if t.Steer {
		if t.Settings != nil {
			return fmt.Errorf("turn settings: a steer joins the running turn, which keeps its settings; send them with the next turn")
		}
		// An unknown thread is the engine's to refuse, naming it.
		if ti, ok := e.Info(id); ok && !ti.Status.IsActive() {
			return fmt.Errorf("steer: no turn is running on thread %s", id)
		}
	}
	return e.Submit(protocol.Op{Type: protocol.OpUserTurn, ThreadID: id, Text: t.Text, Items: t.Items, ClientID: t.ClientID, Overrides: t.Settings})
}

// CheckSettingsChange is the check Configure makes, for a front end that
// shows a setting before the engine has it (the TUI's header): the values
// as CheckTurnSettings judges them, and only what may change between
// turns — the model, its reasoning effort, the approval policy. The cwd,
// sandbox, summary and output schema change with a turn (Turn.Settings):
// a tool call already running keeps the directory and sandbox it was
// approved under.
func CheckSettingsChange(o protocol.TurnOverrides) error {
	if err := CheckTurnSettings(&o); err != nil {
		return fmt.Errorf("turn settings: %w", err)
	}
	for _, f := range []struct {
		name string
		set  bool
	}{{"cwd", o.Cwd != ""}, {"sandbox", o.Sandbox != nil}, {"summary", o.ReasoningSummary != ""}, {"outputSchema", len(o.OutputSchema) > 0}} {
		if f.set {
			return fmt.Errorf("turn settings: %s: changes only with a turn; send it with the next message", f.name)
		}
	}
	return nil
}

// SubmitSettings is Session.Configure on any target; root is the thread
// "" names. The approval policy is the whole tree's; the model and effort
// are the thread's, from its next turn (a running turn keeps its model).
func SubmitSettings(e TurnTarget, root, thread protocol.ThreadID, o protocol.TurnOverrides) error {
	if err := CheckSettingsChange(o); err != nil {
		return err
	}
	if thread == "" {
		thread = root
	}
	if o.ApprovalPolicy != "" {
		if err := e.Submit(protocol.Op{Type: protocol.OpSetApprovalPolicy, ThreadID: thread, ApprovalPolicy: o.ApprovalPolicy}); err != nil {
			return err
		}
	}
	if o.Model != "" || o.ReasoningEffort != "" {
		return e.Submit(protocol.Op{Type: protocol.OpSetModel, ThreadID: thread, Model: o.Model, ReasoningEffort: o.ReasoningEffort})
	}
	return nil
}

// clipLine is s on one line, at most n runes.
func clipLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len([]rune(s)) > n {
		return string([]rune(s)[:n-1]) + "…"
	}
	return s
}
