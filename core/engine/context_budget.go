package engine

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
)

// How big a thread's history is, and when it must be compacted.
//
// The size is the last request's input_tokens as the provider counted it,
// plus an estimate (4 bytes a token, as Codex's approx_token_count) of what
// joined the history since; with no usage reported, the estimate of the
// whole history and instructions. Estimates are kept incrementally, so the
// check costs the same at turn 10 and turn 5,000.

// approxTokens estimates the tokens of a text (Codex: bytes / 4, rounded up).
func approxTokens(s string) int64 { return int64(len(s)+3) / 4 }

// imageTokens is charged per attached image (its data URL's bytes say
// nothing about what the model counts).
const imageTokens = 1000

func itemTokens(it protocol.Item) int64 {
	n := approxTokens(it.Content) + approxTokens(it.Arguments) + approxTokens(it.Output) +
		approxTokens(it.Summary) + approxTokens(it.EncryptedContent) + approxTokens(it.Name)
	return n + int64(len(it.Images))*imageTokens
}

// setHistoryLocked replaces the history (t.mu held) and restarts the
// size bookkeeping.
func (t *Thread) setHistoryLocked(items []protocol.Item) {
	t.history = items
	t.view, t.prefix = nil, nil
	t.estItems, t.estTokens = 0, 0
	t.usageInput, t.usageAt = 0, 0
}

// estimateLocked brings the running estimate up to the whole history.
func (t *Thread) estimateLocked() {
	if t.estItems > len(t.history) {
		t.estItems, t.estTokens = 0, 0
	}
	for _, it := range t.history[t.estItems:] {
		t.estTokens += itemTokens(it)
	}
	t.estItems = len(t.history)
}

// historyTokens is the thread's current context size in tokens.
func (t *Thread) historyTokens() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.estimateLocked()
	if t.usageInput > 0 && t.usageAt <= len(t.history) {
		var since int64
		for _, it := range t.history[t.usageAt:] {
			since += itemTokens(it)
		}
		return t.usageInput + since
	}
	return t.estTokens + approxTokens(t.instructions) + agentsTokens(t.agentsCtx)
}

// noteRequestUsage records what the provider counted for a request that
// carried the first sent items of the history.
// A reply also re-arms automatic compaction.
func (t *Thread) noteRequestUsage(sent int, u protocol.TokenUsage) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.compactedSinceReply = false
	if u.InputTokens > 0 && sent <= len(t.history) {
		t.usageInput, t.usageAt = u.InputTokens, sent
	}
}

// autoCompactLimit is the token count at which a thread on modelName
// compacts: model_auto_compact_token_limit, else 90% of the context window
// (model_context_window, else the provider's /models metadata, else
// grove's table of known models); 0 when none is known.
func (e *Engine) autoCompactLimit(ctx context.Context, modelName string) int64 {
	if e.opts.AutoCompactTokenLimit > 0 {
		return e.opts.AutoCompactTokenLimit
	}
	window := e.opts.ContextWindow
	if window <= 0 {
		window = e.windows.lookup(ctx, e.opts.Client, modelName)
	}
	return window * 9 / 10
}

// contextWindows caches each model's context window for the session: one
// /models lookup per model, never one per turn.
type contextWindows struct {
	mu sync.Mutex
	m  map[string]int64
}

func (w *contextWindows) lookup(ctx context.Context, c model.Client, name string) int64 {
	w.mu.Lock()
	n, ok := w.m[name]
	w.mu.Unlock()
	if ok {
		return n
	}
	n = providerContextWindow(ctx, c, name)
	if n <= 0 {
		n = model.KnownContextWindow(name)
	}
	w.mu.Lock()
	if w.m == nil {
		w.m = map[string]int64{}
	}
	w.m[name] = n
	w.mu.Unlock()
	return n
}

// providerContextWindow reads the model's window from the provider's model
// list, waiting at most a few seconds (the table is the fallback).
func providerContextWindow(ctx context.Context, c model.Client, name string) int64 {
	if c == nil {
		return 0
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	list, err := c.Models(ctx)
	if err != nil && !errors.Is(err, model.ErrModelsUnsupported) {
		return 0
	}
	for _, m := range list {
		if m.ID == name {
			return m.ContextWindow
		}
	}
	return 0
}

// needsCompaction reports whether the history reached the thread's limit.
// Once compacted, it does not fire again before a model reply counted the
// new history: a summary still over the limit must not loop.
func (t *Thread) needsCompaction(ctx context.Context) bool {
	t.mu.Lock()
	name, again := t.modelName, t.compactedSinceReply
	backingOff := t.compactSkip > 0
	if backingOff && !again {
		t.compactSkip-- // one step of the back-off spent
	}
	t.mu.Unlock()
	if again || backingOff {
		return false
	}
	limit := t.e.autoCompactLimit(ctx, name)
	return limit > 0 && t.historyTokens() >= limit
}

// agentsTokens estimates the AGENTS.md block every request carries.
func agentsTokens(items []protocol.Item) int64 {
	var n int64
	for _, it := range items {
		n += itemTokens(it)
	}
	return n
}
