package tui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/grovecli/grove/protocol"
)

// The context gauge (issue 35 item 6): the focused agent's "NN% context
// left", as Codex shows it, and a warning once its history nears the size
// at which the engine compacts it by itself.

// contextLimits are a model's context window and auto-compaction point
// (0: unknown); asked is set while the lookup runs.
type contextLimits struct {
	window, compactAt int64
	asked             bool
}

// contextLimitsMsg brings a model's limits, looked up off the UI loop.
type contextLimitsMsg struct {
	model  string
	limits contextLimits
}

// baselineTokens is what Codex leaves out of the window before it counts
// percentages (the system prompt and tools are always there):
// codex-rs/protocol/src/protocol.rs, BASELINE_TOKENS and
// TokenUsage::percent_of_context_window_remaining.
const baselineTokens = 12000

// percentLeft is Codex's percent_of_context_window_remaining: the share of
// the window past the baseline that inContext leaves free.
func percentLeft(inContext, window int64) int {
	if window <= baselineTokens {
		return 0
	}
	effective := window - baselineTokens
	used := max(0, inContext-baselineTokens)
	left := max(0, effective-used)
	return int(float64(left)/float64(effective)*100 + 0.5)
}

// compactWarnShare is how close to the auto-compaction point (in percent
// of it) the gauge starts warning.
const compactWarnShare = 80

// lookupLimits asks for a model's limits once.
func (m *Model) lookupLimits(model string) tea.Cmd {
	f := m.opts.ContextLimits
	if f == nil || model == "" {
		return nil
	}
	if _, ok := m.limits[model]; ok {
		return nil
	}
	if m.limits == nil {
		m.limits = map[string]contextLimits{}
	}
	m.limits[model] = contextLimits{asked: true}
	return func() tea.Msg {
		w, c := f(model)
		return contextLimitsMsg{model: model, limits: contextLimits{window: w, compactAt: c}}
	}
}

// contextGauge is the status line's gauge for thread t ("" when its
// model's window or its context size is not known), and whether it warns.
func (m Model) contextGauge(t *threadView) (string, bool) {
	if t == nil {
		return "", false
	}
	l := m.limits[t.info.Model]
	inContext := t.lastCall.InputTokens + t.lastCall.OutputTokens
	if l.window <= 0 || inContext <= 0 {
		return "", false
	}
	s := fmt.Sprintf("%d%% context left", percentLeft(inContext, l.window))
	if l.compactAt > 0 && inContext*100 >= l.compactAt*compactWarnShare {
		return s + " · auto-compacts at " + humanTokens(l.compactAt) + " tokens", true
	}
	return s, false
}

// wantLimits asks for the limits of the models of the threads these
// events touched.
func (m *Model) wantLimits(evs []protocol.Event) []tea.Cmd {
	var cmds []tea.Cmd
	for _, ev := range evs {
		if ev.Type != protocol.EventTokenUsage {
			continue
		}
		if t := m.sess.threads[ev.ThreadID]; t != nil {
			if c := m.lookupLimits(t.info.Model); c != nil {
				cmds = append(cmds, c)
			}
		}
	}
	return cmds
}
