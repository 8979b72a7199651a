package engine

import (
	"context"
	"fmt"
	"sync"

	"github.com/google/uuid"

	"github.com/grovecli/grove/core/tools"
	"github.com/grovecli/grove/protocol"
)

// userInputBroker is the rendezvous between a request_user_input call
// waiting for the user and the front end that answers it (the TUI's
// question card, the app-server's item/tool/requestUserInput). The first
// answer wins; later ones are an error naming the request.
type userInputBroker struct {
	mu      sync.Mutex
	pending map[string]*pendingUserInput
}

type pendingUserInput struct {
	req    protocol.UserInputRequest
	answer chan *protocol.UserInputResponse // buffered 1; nil = dismissed
}

// askUser is the AskUser of one call of t: it publishes the questions and
// waits for the answer, the dismissal or ctx (an interrupt). A thread that
// runs non-interactively has nobody to ask.
func (t *Thread) askUser(turnID, callID string) tools.AskUserFunc {
	return func(ctx context.Context, qs []protocol.UserInputQuestion) (*protocol.UserInputResponse, error) {
		e := t.e
		if e.opts.Headless || e.nonInteractive(t) {
			return nil, tools.ErrNoOneToAsk
		}
		p := &pendingUserInput{
			req:    protocol.UserInputRequest{ID: uuid.NewString(), ThreadID: t.id, CallID: callID, TurnID: turnID, Questions: qs},
			answer: make(chan *protocol.UserInputResponse, 1),
		}
		b := &e.userInputs
		b.mu.Lock()
		if b.pending == nil {
			b.pending = map[string]*pendingUserInput{}
		}
		b.pending[p.req.ID] = p
		b.mu.Unlock()
		t.publish(protocol.NewEvent(t.id, turnID, protocol.UserInputRequestedMsg{Request: p.req}))
		select {
		case resp := <-p.answer:
			t.publish(protocol.NewEvent(t.id, turnID, protocol.UserInputResolvedMsg{Request: p.req, Response: resp}))
			return resp, nil
		case <-ctx.Done():
			b.mu.Lock()
			delete(b.pending, p.req.ID)
			b.mu.Unlock()
			// The card closes: nobody can answer a call that ended.
			t.publish(protocol.NewEvent(t.id, turnID, protocol.UserInputResolvedMsg{Request: p.req}))
			return nil, ctx.Err()
		}
	}
}

// answerUserInput resolves a pending request (resp nil = dismissed).
func (e *Engine) answerUserInput(id string, resp *protocol.UserInputResponse) error {
	b := &e.userInputs
	b.mu.Lock()
	p := b.pending[id]
	delete(b.pending, id)
	b.mu.Unlock()
	if p == nil {
		return fmt.Errorf("no pending question %q (already answered, dismissed or interrupted)", id)
	}
	p.answer <- resp
	return nil
}

// PendingUserInputs lists the unanswered request_user_input calls (a
// front end that attaches late opens their cards).
func (e *Engine) PendingUserInputs() []protocol.UserInputRequest {
	b := &e.userInputs
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]protocol.UserInputRequest, 0, len(b.pending))
	for _, p := range b.pending {
		out = append(out, p.req)
	}
	return out
}
