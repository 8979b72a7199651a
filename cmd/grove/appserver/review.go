package appserver

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/grovecli/grove/protocol"
)

// reviewTarget is Codex's ReviewTarget.
type reviewTarget struct {
	Type         string  `json:"type"` // uncommittedChanges | baseBranch | commit | custom
	Branch       string  `json:"branch"`
	Sha          string  `json:"sha"`
	Title        *string `json:"title"`
	Instructions string  `json:"instructions"`
}

// reviewPrompt is what the review turn asks the model, and label the
// review's short description (enteredReviewMode's text); an empty field
// is Codex's invalid-request error.
func (r reviewTarget) reviewPrompt() (prompt, label string, rerr *protocol.RPCError) {
	switch r.Type {
	case "uncommittedChanges":
		return "Review the current code changes (staged, unstaged and untracked files) and provide prioritized findings.", "current changes", nil
	case "baseBranch":
		b := strings.TrimSpace(r.Branch)
		if b == "" {
			return "", "", rpcError(protocol.RPCInvalidRequest, "branch must not be empty")
		}
		return fmt.Sprintf("Review the code changes against the base branch '%s': find the merge base with `git merge-base HEAD %s`, inspect `git diff` against it, and provide prioritized findings.", b, b), "changes against '" + b + "'", nil
	case "commit":
		sha := strings.TrimSpace(r.Sha)
		if sha == "" {
			return "", "", rpcError(protocol.RPCInvalidRequest, "sha must not be empty")
		}
		short := sha
		if len(short) > 7 {
			short = short[:7]
		}
		if r.Title != nil && strings.TrimSpace(*r.Title) != "" {
			title := strings.TrimSpace(*r.Title)
			return fmt.Sprintf("Review the code changes introduced by commit %s (%q). Provide prioritized findings.", sha, title), "commit " + short + ": " + title, nil
		}
		return fmt.Sprintf("Review the code changes introduced by commit %s. Provide prioritized findings.", sha), "commit " + short, nil
	case "custom":
		in := strings.TrimSpace(r.Instructions)
		if in == "" {
			return "", "", rpcError(protocol.RPCInvalidRequest, "instructions must not be empty")
		}
		return in, in, nil
	}
	return "", "", rpcError(protocol.RPCInvalidRequest, "unknown review target type %q", r.Type)
}

// reviewStart is Codex's review/start with inline delivery: a review turn
// on the thread itself, answered with {turn, reviewThreadId}. The turn's
// items open with enteredReviewMode and close with exitedReviewMode, whose
// text is the model's final message (Codex's review model and its JSON
// findings format are not grove's).
func (s *Server) reviewStart(id json.RawMessage, p reviewStartParams) (any, *protocol.RPCError) {
	if p.ThreadID == "" {
		return nil, missing("threadId")
	}
	prompt, label, rerr := p.Target.reviewPrompt()
	if rerr != nil {
		return nil, rerr
	}
	if p.Delivery != "" && p.Delivery != "inline" {
		return nil, rpcError(protocol.RPCInvalidRequest, "review delivery %q is not supported; use inline", p.Delivery)
	}
	t := s.loaded(p.ThreadID)
	if t == nil {
		return nil, notLoaded(p.ThreadID)
	}
	input := []protocol.AppUserInput{{Type: "text", Text: prompt}}
	items, rerr := inputItems(input)
	if rerr != nil {
		return nil, rerr
	}
	if rerr := s.submitTurn(t, id, input, items, nil, label); rerr != nil {
		return nil, rerr
	}
	return deferred, nil
}

// reviewStartParams is Codex's ReviewStartParams.
type reviewStartParams struct {
	ThreadID string       `json:"threadId"`
	Target   reviewTarget `json:"target"`
	Delivery string       `json:"delivery"`
}

// enterReview opens a review turn: the enteredReviewMode item.
func (tr *translation) enterReview(label string) {
	t := tr.t
	t.reviewTurn = tr.ev.TurnID
	item := map[string]any{"type": "enteredReviewMode", "id": "review-" + tr.ev.TurnID, "review": label}
	tr.emit("item/started", itemNote(tr.tid, tr.ev.TurnID, item, "startedAtMs"))
	t.turnItems = append(t.turnItems, item)
	tr.emit("item/completed", itemNote(tr.tid, tr.ev.TurnID, item, "completedAtMs"))
}

// exitReview closes a review turn with the exitedReviewMode item: the
// review is the turn's last agent message.
func (tr *translation) exitReview() {
	t := tr.t
	t.reviewTurn = ""
	review := ""
	for _, it := range t.turnItems {
		if m, ok := it.(protocol.AppAgentMessageItem); ok {
			review = m.Text
		}
	}
	item := map[string]any{"type": "exitedReviewMode", "id": "review-exit-" + tr.ev.TurnID, "review": review}
	tr.emit("item/started", itemNote(tr.tid, tr.ev.TurnID, item, "startedAtMs"))
	t.turnItems = append(t.turnItems, item)
	tr.emit("item/completed", itemNote(tr.tid, tr.ev.TurnID, item, "completedAtMs"))
}
