package tui

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// A modal (and an outside-the-sandbox confirmation) ignores answers for
// its input grace (approval.go), so a key already on its way cannot
// answer it. The user sees when it starts listening: until then the
// modal says "answers open in a moment", then names its keys. Nothing
// else may redraw the screen when the grace ends (an agent waiting on
// the user streams nothing), so a one-shot tick does; tests of the real
// binary wait for that text instead of sleeping through the grace.

// graceEndMsg is the tick at the end of an input grace: its only effect
// is the redraw.
type graceEndMsg struct{}

// graceOver is when the shown request's grace (and its confirmation's)
// ends; zero when no request is shown.
func (a *approvals) graceOver() time.Time {
	if a.current() == nil {
		return time.Time{}
	}
	end := a.shownAt.Add(a.grace)
	if a.confirming() {
		if c := a.confirmAt.Add(a.grace); c.After(end) {
			end = c
		}
	}
	return end
}

// listening reports whether the modal takes answers now: past its grace
// and its confirmation's.
func (a *approvals) listening(now time.Time) bool {
	return !a.graceOver().After(now)
}

// graceTick arms the redraw for the grace that runs now, once per grace.
// With an injected clock (tests) the test moves time and redraws itself.
func (m *Model) graceTick() tea.Cmd {
	end := m.appr.graceOver()
	now := m.now()
	if !m.realClock || !end.After(now) || end.Equal(m.graceEnd) {
		return nil
	}
	m.graceEnd = end
	return tea.Tick(end.Sub(now), func(time.Time) tea.Msg { return graceEndMsg{} })
}
