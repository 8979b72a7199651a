package tui

import (
	"fmt"
	"strings"

	"github.com/grovecli/grove/protocol"
)

// questionLines renders the shown question card at most w wide and maxH
// tall: who asks, the question, its numbered options (the highlighted
// one marked) and how to answer.
func (r *renderer) questionLines(c *questionCards, s *session, w, maxH int) []string {
	req := c.current()
	q := c.question()
	if req == nil || q == nil || maxH < 1 || w < 1 {
		return nil
	}
	boxW := min(w, 100)
	border := maxH >= 7 && boxW >= 24
	inner := boxW
	if border {
		inner = boxW - 4
	}
	title := r.th.modalTitle.Render("Question")
	if h := cardText(q.Header); h != "" {
		title = r.th.modalTitle.Render(clip(h, inner/2))
	}
	if n := len(req.Questions); n > 1 {
		title = r.th.dim.Render(fmt.Sprintf("(%d of %d) ", c.q+1, n)) + title
	}
	if at := s.threads[req.ThreadID]; at != nil {
		title += r.th.dim.Render(" · asked by " + roleLabel(at.info))
	}
	lines := []string{clipANSI(title, inner)}
	for _, l := range wrap(cardText(q.Question), inner) {
		lines = append(lines, r.th.cardTitle.Render(l))
	}
	for i, o := range q.Options {
		row := fmt.Sprintf("%d. %s", i+1, cardText(o.Label))
		if d := cardText(o.Description); d != "" {
			row += r.th.dim.Render(" — " + d)
		}
		row = clipANSI(row, inner-2)
		if i == c.choice {
			row = r.th.tableSel.Render("› " + row)
		} else {
			row = "  " + row
		}
		lines = append(lines, row)
	}
	lines = append(lines, r.th.dim.Render(clip(questionHint(c), inner)))
	room := maxH
	if border {
		room -= 2
	}
	if len(lines) > room {
		// Keep the title, the question's first line, the options and the hint.
		lines = append(lines[:1], lines[len(lines)-min(len(lines)-1, max(0, room-1)):]...)
	}
	for i, l := range lines {
		lines[i] = padRight(l, inner)
	}
	if !border {
		return lines
	}
	box := r.th.modal.Width(inner + 4).Render(strings.Join(lines, "\n"))
	return strings.Split(box, "\n")
}

// questionBody is the right pane while a question waits: the asking
// agent's transcript above the card.
func (m Model) questionBody(xw, h int) []string {
	req := m.quest.current()
	card := m.r.questionLines(&m.quest, m.sess, xw, h)
	above := h - len(card)
	var right []string
	if at := m.sess.threads[req.ThreadID]; at != nil && above >= 2 {
		title := m.th.paneTitle.Render(roleLabel(at.info)) + m.th.warn.Render(" asks")
		right = append([]string{padRight(title, xw)}, m.r.transcriptLines(m.sess, at, xw, above-1)...)
	}
	right = fit(right, xw, above)
	return append(right, card...)
}

// firstQuestion is the text of a request's first question.
func firstQuestion(r protocol.UserInputRequest) string {
	if len(r.Questions) == 0 {
		return ""
	}
	return r.Questions[0].Question
}

// questionHint says how to answer, as the card's focus stands.
func questionHint(c *questionCards) string {
	if c.focused {
		return "1-9 or ↑↓ enter: choose · esc: dismiss · other keys: back to typing"
	}
	return "tab or ↑↓: choose an option · or type your own answer + enter"
}
