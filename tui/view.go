package tui

import (
	"strings"

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
	v.AltScreen = true
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
	switch {
	case m.picker != nil:
		ph := m.h - 2 // everything between the header and the status line
		out = append(out, fit(m.picker.view(m.r, m.w, ph), m.w, ph)...)
		out = append(out, m.statusLine())
		return strings.Join(out, "\n")
	case m.help:
		out = append(out, fit(m.helpWindow(bh), m.w, bh)...)
	case m.review != nil:
		out = append(out, fit(m.reviewView(m.w, bh), m.w, bh)...)
	case m.overlay != nil:
		out = append(out, fit(m.overlay.view(&m, m.w, bh), m.w, bh)...)
	case m.opening != nil:
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
	if m.appr.current() != nil {
		// The asking agent's transcript stays visible above the modal
		// when there is room; the modal comes first.
		modal := m.r.modalLines(&m.appr, m.sess, xw, h)
		above := h - len(modal)
		if at := m.sess.threads[m.appr.asker(m.sess)]; at != nil && above >= 2 {
			title := m.th.paneTitle.Render(roleLabel(at.info)) + m.th.warn.Render(" asks")
			right = append([]string{padRight(title, xw)}, m.r.transcriptLines(m.sess, at, xw, above-1)...)
		}
		right = fit(right, xw, above)
		right = append(right, modal...)
	} else if m.quest.current() != nil {
		right = m.questionBody(xw, h)
	} else if t != nil {
		title := m.th.paneTitle.Render(roleLabel(t.info)) + " " + m.r.threadGlyph(t) + m.th.dim.Render(" "+liveWord(t))
		if note := t.note(); note != "" {
			title += m.th.dim.Render(" · " + clip(note, xw/2))
		}
		if !t.follow {
			title += m.th.warn.Render(" · scrolled (end to follow)")
		}
		if m.tsearch != nil {
			title = m.searchTitle()
		}
		body := m.r.transcriptLines(m.sess, t, xw, h-1)
		if showsWelcome(t, m.focused == m.sess.root) {
			body = append(m.welcomeLines(xw), body...)
		}
		if row := m.searchHit(); row >= 0 && row < len(body) {
			body[row] = m.th.tableSel.Render(padRight(ansiStrip(body[row]), xw))
		}
		right = append([]string{padRight(title, xw)}, body...)
	} else {
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
