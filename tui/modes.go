package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/grovecli/grove/core/app"
	"github.com/grovecli/grove/protocol"
)

// Approval modes (issue 35 item 23): /approvals [mode] and shift+tab,
// as Claude Code switches modes, set the whole tree's approval policy for
// the tool calls that start after it.

// approvalModes is the shift+tab cycle, most careful first.
var approvalModes = []protocol.ApprovalPolicy{protocol.ApprovalUntrusted, protocol.ApprovalOnRequest, protocol.ApprovalOnFailure, protocol.ApprovalNever}

// approvalModeWords says what each mode asks about.
var approvalModeWords = map[protocol.ApprovalPolicy]string{
	protocol.ApprovalUntrusted: "asks before any command not known to be safe",
	protocol.ApprovalOnRequest: "asks when the model requests to leave the sandbox",
	protocol.ApprovalOnFailure: "asks when a sandboxed command fails",
	protocol.ApprovalNever:     "never asks; failures go back to the model",
}

// cycleApprovalMode is shift+tab: the next mode.
func (m *Model) cycleApprovalMode() tea.Cmd {
	next := approvalModes[0]
	for i, p := range approvalModes {
		if p == m.info.ApprovalPolicy {
			next = approvalModes[(i+1)%len(approvalModes)]
		}
	}
	return m.setApprovalMode(next)
}

// setApprovalMode submits the policy and says what it means.
func (m *Model) setApprovalMode(p protocol.ApprovalPolicy) tea.Cmd {
	if m.backend == nil {
		return nil
	}
	m.info.ApprovalPolicy = p
	m.flash = "approvals: " + string(p) + " — " + approvalModeWords[p] + " · shift+tab switches"
	return m.configure(m.sess.root, protocol.TurnOverrides{ApprovalPolicy: p})
}

// approvalsCommand is /approvals [mode].
func (m *Model) approvalsCommand(arg string) tea.Cmd {
	if arg == "" {
		var opts []string
		for _, p := range approvalModes {
			opts = append(opts, string(p))
		}
		m.flash = fmt.Sprintf("approvals: %s — %s · /approvals <%s> or shift+tab", m.info.ApprovalPolicy, approvalModeWords[m.info.ApprovalPolicy], strings.Join(opts, "|"))
		return nil
	}
	// The session core judges the mode as every front end's policy.
	p := protocol.ApprovalPolicy(arg)
	if err := app.CheckSettingsChange(protocol.TurnOverrides{ApprovalPolicy: p}); err != nil {
		m.flash = err.Error()
		return nil
	}
	return m.setApprovalMode(p)
}

// statusCommand is /status: the session's settings and the focused
// agent's usage, as a note in its transcript (Codex's /status).
func (m *Model) statusCommand() {
	t := m.sess.threads[m.focused]
	if t == nil {
		return
	}
	lines := []string{"/status",
		"agent: " + t.fullName() + " · model " + t.info.Model + effortWords(t.info.ReasoningEffort),
		"directory: " + m.location(),
		"approvals: " + string(m.info.ApprovalPolicy) + " · sandbox: " + string(m.info.SandboxMode),
		"tokens: this agent " + usageWords(t.usage) + " · all agents " + usageWords(m.totalUsage()),
	}
	if g, _ := m.contextGauge(t); g != "" {
		lines = append(lines, "context: "+g)
	}
	lines = append(lines, "session: "+string(m.sess.root))
	t.add(&entry{kind: entryInfo, text: strings.Join(lines, "\n")})
	t.follow = true
}

// effortWords names a reasoning effort (" · effort high"), "" when unset.
func effortWords(e string) string {
	if e == "" {
		return ""
	}
	return " · effort " + e
}

// totalUsage is every agent's tokens.
func (m *Model) totalUsage() protocol.TokenUsage {
	var total protocol.TokenUsage
	for _, t := range m.sess.threads {
		total.Add(t.usage)
	}
	return total
}
