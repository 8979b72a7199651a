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
func (s *Session) Turn(t Turn) error {
	if err := CheckTurnSettings(t.Settings); err != nil {
		return fmt.Errorf("turn settings: %w", err)
	}
	id := t.Thread
	if id == "" {
		id = s.root
	}
	return s.eng.Submit(protocol.Op{Type: protocol.OpUserTurn, ThreadID: id, Text: t.Text, Items: t.Items, ClientID: t.ClientID, Overrides: t.Settings})
}

// clipLine is s on one line, at most n runes.
func clipLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len([]rune(s)) > n {
		return string([]rune(s)[:n-1]) + "…"
	}
	return s
}
