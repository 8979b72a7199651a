package engine

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/grovecli/grove/protocol"
)

// applyOverrides sets a thread's settings for the turn its input starts
// and the turns after it (Codex's turn/start overrides). They are checked
// whole before any is applied, and refused while a turn runs: a tool call
// in flight keeps the cwd and sandbox it was approved under. When the
// environment the model was told about changes, the model is told the new
// one before the turn's input (Codex's <environment_context> message).
func (e *Engine) applyOverrides(t *Thread, o *protocol.TurnOverrides) error {
	if o == nil {
		return nil
	}
	cwd, err := checkOverrides(o)
	if err != nil {
		return err
	}
	if o.ApprovalPolicy != "" && o.ApprovalPolicy != e.ApprovalPolicy() {
		if err := e.setApprovalPolicy(t, o.ApprovalPolicy); err != nil {
			return err
		}
	}
	t.mu.Lock()
	if t.turn.running {
		t.mu.Unlock()
		return fmt.Errorf("thread %s is running a turn: its settings change with the next turn", t.id)
	}
	changed := false
	if cwd != "" && cwd != t.cwd {
		t.cwd, changed = cwd, true
	}
	if o.Sandbox != nil && !sameSandbox(*o.Sandbox, t.sandbox) {
		sb := *o.Sandbox
		sb.WritableRoots = append([]string(nil), sb.WritableRoots...)
		t.sandbox, changed = sb, true
	}
	if o.Model != "" {
		t.modelName = o.Model
	}
	if o.ReasoningEffort != "" {
		t.effort = o.ReasoningEffort
	}
	if o.ReasoningSummary != "" {
		t.summary = o.ReasoningSummary
	}
	if len(o.OutputSchema) > 0 {
		t.turn.nextSchema = append(json.RawMessage(nil), o.OutputSchema...)
	}
	notice := ""
	if changed || o.ApprovalPolicy != "" {
		notice = environmentContext(t.cwd, t.sandbox, e.ApprovalPolicy())
	}
	t.mu.Unlock()
	if changed || o.ApprovalPolicy != "" {
		t.notify(protocol.GroveNotice(notice))
		e.updateIndex(t)
	}
	return nil
}

// checkOverrides validates the overrides and returns the absolute cwd
// ("" = unchanged).
func checkOverrides(o *protocol.TurnOverrides) (string, error) {
	if o.ApprovalPolicy != "" && !o.ApprovalPolicy.Valid() {
		return "", fmt.Errorf("approvalPolicy: unknown policy %q (untrusted, on-request, on-failure, never)", o.ApprovalPolicy)
	}
	if o.Sandbox != nil && !o.Sandbox.Mode.Valid() {
		return "", fmt.Errorf("sandboxPolicy: unknown mode %q", o.Sandbox.Mode)
	}
	if o.ReasoningSummary != "" && !protocol.ReasoningSummaries[o.ReasoningSummary] {
		return "", fmt.Errorf("summary: unknown value %q (auto, concise, detailed, none)", o.ReasoningSummary)
	}
	if len(o.OutputSchema) > 0 {
		var obj map[string]any
		if err := json.Unmarshal(o.OutputSchema, &obj); err != nil {
			return "", fmt.Errorf("outputSchema: not a JSON Schema object: %w", err)
		}
	}
	if o.Cwd == "" {
		return "", nil
	}
	if !filepath.IsAbs(o.Cwd) {
		return "", fmt.Errorf("cwd: %q is not an absolute path", o.Cwd)
	}
	cwd := filepath.Clean(o.Cwd)
	st, err := os.Stat(cwd)
	if err != nil {
		return "", fmt.Errorf("cwd: %w", err)
	}
	if !st.IsDir() {
		return "", fmt.Errorf("cwd: %s is not a directory", cwd)
	}
	return cwd, nil
}

func sameSandbox(a, b protocol.SandboxPolicy) bool {
	return a.Mode == b.Mode && a.NetworkAccess == b.NetworkAccess && a.ExcludeSlashTmp == b.ExcludeSlashTmp &&
		a.ExcludeTmpdirEnvVar == b.ExcludeTmpdirEnvVar && strings.Join(a.WritableRoots, "\x00") == strings.Join(b.WritableRoots, "\x00")
}

// environmentContext is the message that tells the model its environment
// changed, in Codex's <environment_context> form.
func environmentContext(cwd string, sb protocol.SandboxPolicy, policy protocol.ApprovalPolicy) string {
	var b strings.Builder
	b.WriteString("<environment_context>\n")
	fmt.Fprintf(&b, "  <cwd>%s</cwd>\n", cwd)
	fmt.Fprintf(&b, "  <approval_policy>%s</approval_policy>\n", policy)
	fmt.Fprintf(&b, "  <sandbox_mode>%s</sandbox_mode>\n", sb.Mode)
	if sb.Mode == protocol.SandboxWorkspaceWrite {
		network := "restricted"
		if sb.NetworkAccess {
			network = "enabled"
		}
		fmt.Fprintf(&b, "  <network_access>%s</network_access>\n", network)
		for _, r := range sb.WritableRoots {
			fmt.Fprintf(&b, "  <writable_root>%s</writable_root>\n", r)
		}
	}
	b.WriteString("</environment_context>")
	return b.String()
}

// turnMetadata is the x-codex-turn-metadata header value: the client's
// metadata and the turn id, as one JSON object.
func turnMetadata(meta map[string]string, turnID string) string {
	m := make(map[string]string, len(meta)+1)
	for k, v := range meta {
		m[k] = v
	}
	m["turn_id"] = turnID
	b, _ := json.Marshal(m)
	return string(b)
}
