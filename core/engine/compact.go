package engine

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

// Compaction replaces a thread's history with a summary, the way Codex does
// (codex-rs/core/src/compact.rs): the model is asked, with the whole
// history and Codex's summarisation prompt, for a handoff summary; the new
// history is the most recent user messages (up to compactUserMessageTokens)
// followed by the summary as a bridge message. The rollout records the
// replacement history (a `compacted` line) so a resume rebuilds it.

//go:embed compact/prompt.md
var compactPrompt string

//go:embed compact/summary_prefix.md
var compactSummaryPrefix string

// compactUserMessageTokens bounds the user messages kept across a
// compaction (Codex's COMPACT_USER_MESSAGE_MAX_TOKENS).
const compactUserMessageTokens = 20_000

// CompactInfo describes one compaction to a CompactObserver.
type CompactInfo struct {
	ThreadID protocol.ThreadID
	// Trigger is protocol.CompactAuto, CompactManual or CompactContextExceeded.
	Trigger string
	// TokensBefore estimates the history before; TokensAfter (PostCompact
	// only) after.
	TokensBefore, TokensAfter int64
	// Summary is the model's summary (PostCompact only).
	Summary string
}

// CompactObserver hears every thread's compactions: PreCompact before the
// summary request, PostCompact once the history is replaced (not after a
// compaction that failed). Called on the compacting thread's goroutine; a
// slow observer delays that thread only. This is where PreCompact /
// PostCompact hooks attach.
type CompactObserver interface {
	PreCompact(ctx context.Context, c CompactInfo)
	PostCompact(ctx context.Context, c CompactInfo)
}

// compact summarises the thread's history and replaces it. instructions
// (manual /compact only) are appended to the summarisation prompt. On
// failure the history is unchanged and the error is returned (and
// published).
func (t *Thread) compact(ctx context.Context, turnID, trigger, instructions string) error {
	e := t.e
	t.budget.markCompacting()
	before := t.historyTokens()
	if obs := e.opts.Compaction; obs != nil {
		obs.PreCompact(ctx, CompactInfo{ThreadID: t.id, Trigger: trigger, TokensBefore: before})
	}
	// The provider's compact endpoint where it has one (Codex's remote
	// compaction), else a summary from the model.
	newHistory, covered := t.remoteCompaction(ctx, turnID)
	var summary, bridge string
	if newHistory == nil {
		var err error
		if summary, err = t.requestSummary(ctx, turnID, instructions); err != nil {
			if ctx.Err() == nil && t.compactionFailed(trigger) {
				t.publish(protocol.NewEvent(t.id, turnID, protocol.ErrorMsg{Text: "compaction failed: " + err.Error() + compactBackoffNote(trigger)}))
			}
			return err
		}
		bridge = compactSummaryPrefix + "\n" + summary
	}
	// Codex keeps 20k tokens of user messages; under a lower limit, half
	// of it, or every turn after a compaction would compact again.
	budget := int64(compactUserMessageTokens)
	if limit := e.autoCompactLimit(ctx, t.model()); limit > 0 && limit/2 < budget {
		budget = limit / 2
	}
	newHistory = t.budget.replace(func(history []protocol.Item) []protocol.Item {
		if newHistory == nil {
			return buildCompactedHistory(collectUserMessages(history), bridge, budget)
		}
		if covered <= len(history) {
			// Items added while the endpoint worked are kept after its output.
			return append(newHistory, history[covered:]...)
		}
		return newHistory
	})
	rec := t.recorder()
	if rec != nil {
		if err := rec.AppendCompacted(rollout.Compacted{Message: bridge, ReplacementHistory: newHistory}); err != nil {
			t.e.warnOnce(t.id, "rollout", err)
		}
	}
	after := t.historyTokens()
	c := protocol.Compaction{Trigger: trigger, TokensBefore: before, TokensAfter: after}
	t.publish(protocol.NewEvent(t.id, turnID, protocol.ContextCompactedMsg{Compaction: c}))
	t.flush()
	if obs := e.opts.Compaction; obs != nil {
		obs.PostCompact(ctx, CompactInfo{ThreadID: t.id, Trigger: trigger, TokensBefore: before, TokensAfter: after, Summary: summary})
	}
	return nil
}

// compactionFailed counts a failed compaction and reports whether to say
// so: an automatic one that keeps failing is skipped for 1, 2, 4 … 32
// later steps (each attempt costs the provider's own retries and their
// backoff) and said once, until one succeeds. A manual one always says.
func (t *Thread) compactionFailed(trigger string) bool {
	if trigger == protocol.CompactManual {
		return true
	}
	return t.budget.compactFailed()
}

func compactBackoffNote(trigger string) string {
	if trigger == protocol.CompactManual {
		return ""
	}
	return " (grove retries it at later steps, less and less often, and says nothing more until it succeeds)"
}

// remoteCompaction compacts with the provider's compact endpoint when it
// has one (model.Compactor; Codex's compact_remote.rs): the thread's
// instructions and history go, the endpoint's output (the user messages
// it kept and an opaque compaction item) is the new history, covering the
// first covered items of the current one. nil when the provider has no
// endpoint or the call failed: the failure is a warning and the caller
// summarises with the model instead, so a compaction still happens.
func (t *Thread) remoteCompaction(ctx context.Context, turnID string) (items []protocol.Item, covered int) {
	rc, ok := t.e.opts.Client.(model.Compactor)
	if !ok || !rc.CompactsRemotely() {
		return nil, 0
	}
	req := t.buildRequest()
	items, err := rc.Compact(ctx, req)
	if err != nil {
		if ctx.Err() == nil {
			t.publish(protocol.NewEvent(t.id, turnID, protocol.WarningMsg{Text: fmt.Sprintf("remote compaction failed (%v); summarising with the model instead", err)}))
		}
		return nil, 0
	}
	return t.withoutAgentsContext(items), len(req.Items) - len(t.agentsCtx)
}

// withoutAgentsContext drops the AGENTS.md block from items a compaction
// kept: every request adds it again in front of the history.
func (t *Thread) withoutAgentsContext(items []protocol.Item) []protocol.Item {
	if len(t.agentsCtx) == 0 {
		return items
	}
	out := items[:0:0]
	for _, it := range items {
		if it.Type == protocol.ItemMessage && it.Role == protocol.RoleUser && slices.ContainsFunc(t.agentsCtx, func(c protocol.Item) bool { return c.Content == it.Content }) {
			continue
		}
		out = append(out, it)
	}
	return out
}

// requestSummary asks the model for the handoff summary. The request is
// the thread's own (instructions, tools, history) plus the prompt, so a
// provider's prompt cache still covers its prefix. A history that is
// itself too long for the model loses its oldest items until it fits, as
// in Codex.
func (t *Thread) requestSummary(ctx context.Context, turnID, instructions string) (string, error) {
	e := t.e
	req := t.buildRequest()
	req.Tools = e.tools.SpecsFor(ctx, t.sourceEnv(turnID), t.toolAllowed)
	prompt := compactPrompt
	if s := strings.TrimSpace(instructions); s != "" {
		prompt += "\n\nAlso follow these instructions for the summary:\n" + s
	}
	items := req.Items
	trimmed := 0
	for {
		req.Items = append(items[:len(items):len(items)], protocol.GroveNotice(prompt))
		resp, err := e.opts.Client.Stream(ctx, req, nil)
		if err == nil {
			t.accountUsage(turnID, resp.Usage)
			if trimmed > 0 {
				t.publish(protocol.NewEvent(t.id, turnID, protocol.WarningMsg{Text: fmt.Sprintf("Trimmed %d older conversation item(s) before compacting so the prompt fits the model context window.", trimmed)}))
			}
			if strings.TrimSpace(resp.Text) == "" {
				return "(no summary available)", nil
			}
			return resp.Text, nil
		}
		if !errors.Is(err, model.ErrContextWindowExceeded) || len(items) <= 1 {
			return "", err
		}
		n := overflowTrim(items, err.Error())
		items, trimmed = items[n:], trimmed+n
	}
}

// dropOldest returns how many leading items to drop: the first one, and
// the outputs and reasoning that belonged to a call dropped with it (a
// provider refuses an output whose call is gone).
func dropOldest(items []protocol.Item) int {
	n := 1
	for n < len(items)-1 && (items[n].Type == protocol.ItemFunctionCallOutput || items[n].Type == protocol.ItemReasoning) {
		n++
	}
	return n
}

// isSummaryMessage reports a bridge message an earlier compaction wrote.
func isSummaryMessage(it protocol.Item) bool {
	return it.Type == protocol.ItemMessage && strings.HasPrefix(it.Content, compactSummaryPrefix+"\n")
}

// collectUserMessages returns the messages the user (or, for a sub-agent,
// the agent that gave it work) wrote, oldest first: not grove's notices,
// not an earlier summary. Images are left behind; their text is kept.
func collectUserMessages(history []protocol.Item) []protocol.Item {
	var out []protocol.Item
	for _, it := range history {
		if it.Type != protocol.ItemMessage || (it.Role != protocol.RoleUser && it.Role != protocol.RoleAgent) {
			continue
		}
		if it.IsGroveNotice() || isSummaryMessage(it) || it.Content == "" {
			continue
		}
		out = append(out, protocol.Item{Type: protocol.ItemMessage, Role: it.Role, From: it.From, Content: it.Content})
	}
	return out
}

// buildCompactedHistory keeps the newest user messages within maxTokens
// (the one that crosses it truncated in the middle) and appends the
// summary as a message grove wrote.
func buildCompactedHistory(users []protocol.Item, summary string, maxTokens int64) []protocol.Item {
	var kept []protocol.Item
	remaining := maxTokens
	for i := len(users) - 1; i >= 0 && remaining > 0; i-- {
		it := users[i]
		n := approxTokens(it.Content)
		if n > remaining {
			it.Content = truncateMiddle(it.Content, remaining)
			kept = append(kept, it)
			break
		}
		kept = append(kept, it)
		remaining -= n
	}
	out := make([]protocol.Item, 0, len(kept)+1)
	for i := len(kept) - 1; i >= 0; i-- {
		out = append(out, kept[i])
	}
	return append(out, protocol.GroveNotice(summary))
}

// truncateMiddle keeps the start and end of s within about tokens tokens.
func truncateMiddle(s string, tokens int64) string {
	keep := int(tokens) * 4
	if len(s) <= keep {
		return s
	}
	head, tail := keep/2, keep-keep/2
	for head > 0 && !isRuneStart(s[head]) {
		head--
	}
	start := len(s) - tail
	for start < len(s) && !isRuneStart(s[start]) {
		start++
	}
	cut := approxTokens(s[head:start])
	return fmt.Sprintf("%s…%d tokens truncated…%s", s[:head], cut, s[start:])
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// requestCompaction asks the thread's loop to compact (OpCompact): now if
// the thread is idle, after the running turn otherwise.
func (t *Thread) requestCompaction(instructions string) error {
	t.mu.Lock()
	if t.life.gone() {
		t.mu.Unlock()
		return fmt.Errorf("thread %s is closed; resume it before compacting", t.id)
	}
	t.turn.compactPending, t.turn.compactNote = true, instructions
	t.mu.Unlock()
	t.signal()
	return nil
}

// runCompaction is a manual compaction on the loop's goroutine: it can be
// interrupted like a turn, and the thread's status returns to what it was.
func (t *Thread) runCompaction(parent context.Context) {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	turnID := uuid.NewString()
	t.mu.Lock()
	note := t.turn.compactNote
	t.turn.compactPending, t.turn.compactNote = false, ""
	t.turn.cancel, t.turn.id, t.turn.running = cancel, turnID, true
	t.mu.Unlock()
	prev, _ := t.Status()
	t.setStatus(protocol.Running())
	_ = t.compact(ctx, turnID, protocol.CompactManual, note)
	t.transition(func(protocol.AgentStatus) (protocol.AgentStatus, bool) {
		more := t.turn.end()
		return prev, !more && !t.life.gone()
	})
	t.sync()
}

func (t *Thread) model() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.modelName
}
