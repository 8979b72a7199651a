package tui

import (
	"strings"
	"time"
	"unicode"

	tea "charm.land/bubbletea/v2"

	"github.com/grovecli/grove/protocol"
)

// The question card answers request_user_input: a model's one to three
// short questions, each with options. It shows below the asking agent's
// transcript (after any approval, which comes first) and follows the
// approval modal's rule that it never takes keys meant for the composer:
// its keys work only once the user moved to it on purpose (tab, or ↑/↓ on
// an empty composer); then digits pick an option, enter the highlighted
// one, esc dismisses, and any other key goes back to the composer. A
// draft typed after the card appeared, sent with enter, is the free-form
// ("Other") answer to the current question; a draft begun before it is
// sent as a message as usual. Answers wait out a short grace after the
// card appears, so a key already on its way cannot answer it.

// questionCards is the queue of pending requests; the first is shown.
type questionCards struct {
	queue   []protocol.UserInputRequest
	shownAt time.Time
	grace   time.Duration
	// q is the question shown of the first request, choice its highlight.
	q, choice int
	// answers collects the answered questions of the first request.
	answers map[string]protocol.UserInputAnswer
	// focused: the card's keys answer; draftBefore: the composer held a
	// draft when the card appeared (it is not an answer).
	focused, draftBefore bool
}

func (c *questionCards) current() *protocol.UserInputRequest {
	if len(c.queue) == 0 {
		return nil
	}
	return &c.queue[0]
}

func (c *questionCards) push(r protocol.UserInputRequest, now time.Time, draft bool) {
	for _, q := range c.queue {
		if q.ID == r.ID {
			return
		}
	}
	c.queue = append(c.queue, r)
	if len(c.queue) == 1 {
		c.start(now)
		c.draftBefore = draft
	}
}

// remove drops a request (answered here, elsewhere, or withdrawn).
func (c *questionCards) remove(id string, now time.Time) {
	for i, q := range c.queue {
		if q.ID == id {
			c.queue = append(c.queue[:i], c.queue[i+1:]...)
			if i == 0 {
				c.start(now)
			}
			return
		}
	}
}

func (c *questionCards) start(now time.Time) {
	c.shownAt, c.q, c.choice, c.answers = now, 0, 0, map[string]protocol.UserInputAnswer{}
	c.focused, c.draftBefore = false, false
}

// question is the question being asked.
func (c *questionCards) question() *protocol.UserInputQuestion {
	r := c.current()
	if r == nil || c.q >= len(r.Questions) {
		return nil
	}
	return &r.Questions[c.q]
}

// questionAct is what a key did to the card.
type questionAct int

const (
	questionPass     questionAct = iota // not the card's key
	questionHandled                     // moved the highlight, or too early
	questionAnswered                    // every question answered: submit
	questionDismissed
)

// key offers a key to the card; draft is the composer's text. usedDraft
// says the draft became an answer (the composer is then cleared).
func (c *questionCards) key(k, draft string, now time.Time) (act questionAct, usedDraft bool) {
	q := c.question()
	if q == nil {
		return questionPass, false
	}
	early := now.Sub(c.shownAt) < c.grace
	if strings.TrimSpace(draft) != "" {
		c.focused = false
		if k != "enter" || c.draftBefore {
			return questionPass, false // typing, or a message begun before
		}
		if early {
			return questionHandled, false
		}
		return c.answer([]string{strings.TrimSpace(draft)}), true
	}
	c.draftBefore = false // the composer is empty: what comes next is new
	switch {
	case is(k, questionKeys.Focus):
		c.focused = true
		return questionHandled, false
	case is(k, questionKeys.Up):
		c.focused, c.choice = true, max(0, c.choice-1)
		return questionHandled, false
	case is(k, questionKeys.Down):
		c.focused, c.choice = true, min(len(q.Options)-1, c.choice+1)
		return questionHandled, false
	}
	if !c.focused {
		return questionPass, false
	}
	isDigit := len(k) == 1 && k[0] >= '1' && k[0] <= '9'
	switch {
	case early && (k == "esc" || k == "enter" || isDigit):
		return questionHandled, false
	case k == "esc":
		return questionDismissed, false
	case k == "enter" && len(q.Options) > 0:
		return c.answer([]string{q.Options[c.choice].Label}), false
	case isDigit && int(k[0]-'1') < len(q.Options):
		return c.answer([]string{q.Options[k[0]-'1'].Label}), false
	}
	c.focused = false // a key for the composer: back to typing
	return questionPass, false
}

// answer records the current question's answer and moves on.
func (c *questionCards) answer(a []string) questionAct {
	q := c.question()
	c.answers[q.ID] = protocol.UserInputAnswer{Answers: a}
	c.q, c.choice = c.q+1, 0
	if c.question() == nil {
		return questionAnswered
	}
	return questionHandled
}

// questionKey offers a key to the shown card; done is false when the key
// belongs to the composer or elsewhere. An answer or a dismissal goes to
// the engine as OpUserInput.
func (m *Model) questionKey(k string, now time.Time) (done bool, cmd tea.Cmd) {
	req := m.quest.current()
	act, usedDraft := m.quest.key(k, m.composer.Value(), now)
	if usedDraft {
		m.clearComposer()
	}
	var op protocol.Op
	switch act {
	case questionPass:
		return false, nil
	case questionHandled:
		return true, nil
	case questionAnswered:
		op = protocol.Op{Type: protocol.OpUserInput, ThreadID: req.ThreadID, UserInputID: req.ID, UserInput: &protocol.UserInputResponse{Answers: m.quest.answers}}
	default: // dismissed: the model is told the user did not answer
		op = protocol.Op{Type: protocol.OpUserInput, ThreadID: req.ThreadID, UserInputID: req.ID}
	}
	m.quest.remove(req.ID, now)
	return true, m.submit(op)
}

// cardText makes model-written text safe for one line of the card: escape
// sequences and control characters removed.
func cardText(s string) string {
	s = ansiStrip(s)
	return strings.Join(strings.Fields(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)), " ")
}
