package tui

import (
	"fmt"
	"strings"

	"github.com/grovecli/grove/protocol"

	tea "charm.land/bubbletea/v2"
)

// Layout.

func (m Model) treeWidth() int {
	if !m.showTree || m.w < 60 {
		return 0
	}
	return min(44, max(24, m.w*3/10))
}

func (m Model) transcriptWidth() int {
	tw := m.treeWidth()
	if tw > 0 {
		return max(10, m.w-tw-3)
	}
	return max(10, m.w-2)
}

// The screen is the header, the body, the slash menu, the composer's rule
// and rows, and the status line. Every height below is clamped so the
// parts add up to the window at any size (down to minW×minH).

const minW, minH = 20, 6

// composerRows is how many rows the composer's input shows.
func (m Model) composerRows() int {
	return max(1, min(m.composer.Height(), composerMaxRows(m.h)))
}

// slashRows is how many rows of the slash menu show: what is left after
// the fixed rows and three rows of body.
func (m Model) slashRows() int {
	return min(len(m.slashMenu()), max(0, m.h-3-m.composerRows()-3))
}

func (m Model) bodyHeight() int {
	return max(1, m.h-3-m.composerRows()-m.slashRows()-len(m.skillMenu()))
}

// View renders the screen.
func (m Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = !m.opts.Inline
	if m.mouse {
		v.MouseMode = tea.MouseModeCellMotion
	}
	v.ReportFocus = true
	v.WindowTitle = "grove"
	return v
}

func (m Model) render() string {
	if m.w < minW || m.h < minH {
		return strings.Join(fit([]string{"grove: window too small"}, m.w, m.h), "\n")
	}
	var out []string
	out = append(out, m.headerLine())
	bh := m.bodyHeight()
	switch m.topLayer() {
	case layerPicker:
		ph := m.h - 2 // everything between the header and the status line
		out = append(out, fit(m.picker.view(m.r, m.w, ph), m.w, ph)...)
		out = append(out, m.picker.footer(m.r, m.w))
		return strings.Join(out, "\n")
	case layerHelp:
		out = append(out, fit(m.helpWindow(bh), m.w, bh)...)
	case layerReview:
		out = append(out, fit(m.reviewView(m.w, bh), m.w, bh)...)
	case layerAgents:
		out = append(out, fit(m.overlay.view(&m, m.w, bh), m.w, bh)...)
	case layerOpening:
		out = append(out, fit(m.openingLines(), m.w, bh)...)
	default:
		out = append(out, m.bodyLines(bh)...)
	}
	out = append(out, m.composerLines()...)
	out = append(out, m.statusLine())
	return strings.Join(out, "\n")
}

func (m Model) headerLine() string {
	title := m.th.header.Render("grove")
	info := ""
	if m.backend != nil {
		info = " " + m.info.Model
		if m.info.Provider != "" {
			info += m.th.headerDim.Render(" · " + m.info.Provider)
		}
	}
	right := ""
	if m.info.Demo {
		right = m.th.demo.Render("offline demo model")
	}
	if m.sess.root != "" {
		right += m.th.headerDim.Render(" session " + m.sess.root.Short())
	}
	gap := m.w - lipglossWidth(title) - lipglossWidth(info) - lipglossWidth(right)
	if gap < 1 {
		return padRight(title+info+" "+right, m.w)
	}
	return title + info + strings.Repeat(" ", gap) + right
}

func (m Model) bodyLines(h int) []string {
	tw := m.treeWidth()
	xw := m.transcriptWidth()
	var right []string
	t := m.sess.threads[m.focused]
	switch {
	case m.modalShown():
		// The asking agent's transcript stays visible above its modal
		// when there is room; the modal comes first.
		modal := m.r.modalLines(&m.appr, m.sess, xw, h)
		above := h - len(modal)
		if above >= 2 {
			title := m.th.paneTitle.Render(t.fullName()) + m.th.warn.Render(" asks")
			if !t.follow {
				title += m.th.warn.Render(" · scrolled (end to follow)")
			}
			right = append([]string{padRight(title, xw)}, m.r.transcriptLines(m.sess, t, xw, above-1)...)
		}
		right = fit(right, xw, above)
		right = append(right, modal...)
	case m.questionShown():
		right = m.questionBody(xw, h)
	case t != nil:
		right = m.paneLines(t, xw, h)
	default:
		right = []string{m.th.dim.Render("no session open")}
	}
	right = fit(right, xw, h)
	if tw == 0 {
		return joinColumns(fit(nil, 1, h), right)
	}
	left := fit(m.treeLines(tw, h), tw, h)
	sep := make([]string, h)
	for i := range sep {
		sep[i] = m.th.paneBorder.Render(" │ ")
	}
	return joinColumns(left, sep, right)
}

// paneLines is the focused agent's pane: its title, its transcript and,
// while another agent waits on the user, a banner that leads there.
func (m Model) paneLines(t *threadView, xw, h int) []string {
	title := m.th.paneTitle.Render(t.fullName()) + " " + m.r.threadGlyph(t) + m.th.dim.Render(" "+liveWord(t))
	if note := t.note(); note != "" {
		title += m.th.dim.Render(" · " + clip(note, xw/2))
	}
	if !t.follow {
		title += m.th.warn.Render(" · scrolled (end to follow)")
	}
	if m.tsearch != nil {
		title = m.searchTitle()
	}
	banner := m.approvalBanner(xw)
	ro := m.readOnlyBanner(xw, h)
	bodyH := h - 1 - len(banner) - len(ro)
	body := m.r.transcriptLines(m.sess, t, xw, bodyH)
	if showsWelcome(t, m.focused == m.sess.root) {
		body = append(m.welcomeLines(xw), body...)
	}
	if row := m.searchHit(); row >= 0 && row < len(body) {
		body[row] = m.th.tableSel.Render(padRight(ansiStrip(body[row]), xw))
	}
	out := append([]string{padRight(title, xw)}, ro...)
	out = append(out, fit(body, xw, max(0, bodyH))...)
	return append(out, banner...)
}

// approvalBanner says that an agent not on screen waits on the user, and
// how to get there (nil when none waits, or the window is too short).
func (m Model) approvalBanner(xw int) []string {
	req := m.appr.current()
	if req == nil || m.modalShown() || m.bodyHeight() < 4 {
		return nil
	}
	who := m.sess.nameOf(m.appr.asker(m.sess))
	text := "⚠ " + who + " waits for your approval"
	if n := len(m.appr.queue); n > 1 {
		text += fmt.Sprintf(" (1 of %d)", n)
	}
	text += " · tab to answer: " + plainSummary(approvalSummary(*req), 200) // what is cut is the command's end
	return []string{m.th.warn.Render(clip(text, xw))}
}

// askBadge marks an agent in the tree that waits on the user.
func (m Model) askBadge(id protocol.ThreadID) string {
	if m.appr.waits(m.sess, id) {
		return "⚠ "
	}
	return ""
}

// readOnlyBanner says, whole (wrapped, never cut), that the session is
// open read-only and how to continue a copy (issue 35 item 4).
func (m Model) readOnlyBanner(xw, h int) []string {
	if m.info.ReadOnly == "" {
		return nil
	}
	var out []string
	for _, l := range wrap("⊘ "+m.info.ReadOnly, xw) {
		out = append(out, m.th.warn.Render(padRight(l, xw)))
	}
	return out[:min(len(out), max(1, h/2))]
}
