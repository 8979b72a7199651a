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

// contextBudget owns a thread's conversation as the model sees it and its
// size: the history, the request view converted from it, the encoded
// prefix, the running token estimate and the state that gates automatic
// compaction. Its lock is a leaf: taken alone or under the thread's mu,
// and no method calls out while holding it.
type contextBudget struct {
	mu      sync.Mutex
	history []protocol.Item
	// Context size bookkeeping: estTokens estimates history[:estItems];
	// usageInput is the provider's input_tokens for the last request,
	// which carried history[:usageAt].
	estItems   int
	estTokens  int64
	usageInput int64
	usageAt    int
	// view is the history as the model sees it (modelItems), converted
	// once per item; prefix keeps its encoded form between requests.
	// Both start over when the history is replaced.
	view   []protocol.Item
	prefix *model.PrefixCache
	// compactedSinceReply: compacted, and no model reply since.
	compactedSinceReply bool
	// compactFailures counts automatic compactions failed in a row;
	// compactSkip is how many more steps skip one (back off across steps).
	compactFailures, compactSkip int
}

// items returns a copy of the history.
func (b *contextBudget) items() []protocol.Item {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]protocol.Item(nil), b.history...)
}

// len is the number of items in the history.
func (b *contextBudget) len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.history)
}

// append adds items to the history.
func (b *contextBudget) append(items ...protocol.Item) {
	b.mu.Lock()
	b.history = append(b.history, items...)
	b.mu.Unlock()
}

// set replaces the history and restarts the size bookkeeping.
func (b *contextBudget) set(items []protocol.Item) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.setLocked(items)
}

func (b *contextBudget) setLocked(items []protocol.Item) {
	b.history = items
	b.view, b.prefix = nil, nil
	b.estItems, b.estTokens = 0, 0
	b.usageInput, b.usageAt = 0, 0
}

// replace swaps the history for what build makes of it (build runs under
// the lock and must not call out) and re-arms compaction after failures.
func (b *contextBudget) replace(build func(history []protocol.Item) []protocol.Item) []protocol.Item {
	b.mu.Lock()
	defer b.mu.Unlock()
	items := build(b.history)
	b.setLocked(items)
	b.compactFailures, b.compactSkip = 0, 0
	return items
}

// estimateLocked brings the running estimate up to the whole history.
func (b *contextBudget) estimateLocked() {
	if b.estItems > len(b.history) {
		b.estItems, b.estTokens = 0, 0
	}
	for _, it := range b.history[b.estItems:] {
		b.estTokens += itemTokens(it)
	}
	b.estItems = len(b.history)
}

// tokens is the context size: the last request's usage plus the estimate
// of what joined since, else the estimate of the history and of what
// opens every request (fixed).
func (b *contextBudget) tokens(fixed int64) int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.estimateLocked()
	if b.usageInput > 0 && b.usageAt <= len(b.history) {
		var since int64
		for _, it := range b.history[b.usageAt:] {
			since += itemTokens(it)
		}
		return b.usageInput + since
	}
	return b.estTokens + fixed
}

// noteUsage records what the provider counted for a request that carried
// the first sent items of the history. A reply also re-arms automatic
// compaction.
func (b *contextBudget) noteUsage(sent int, u protocol.TokenUsage) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.compactedSinceReply = false
	if u.InputTokens > 0 && sent <= len(b.history) {
		b.usageInput, b.usageAt = u.InputTokens, sent
	}
}

// markCompacting notes a compaction attempt: failed or not, no automatic
// one again before a reply.
func (b *contextBudget) markCompacting() {
	b.mu.Lock()
	b.compactedSinceReply = true
	b.mu.Unlock()
}

// mayAutoCompact reports whether this step may check the size: not again
// before a reply counted a compacted history, and not while backing off
// after failures (which spends one step of the back-off).
func (b *contextBudget) mayAutoCompact() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.compactedSinceReply {
		return false
	}
	if b.compactSkip > 0 {
		b.compactSkip--
		return false
	}
	return true
}

// compactFailed counts a failed automatic compaction: the next 1, 2, 4 …
// 32 steps skip one. It reports whether this is the first failure in a row.
func (b *contextBudget) compactFailed() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.compactFailures++
	b.compactSkip = 1 << min(b.compactFailures-1, 5)
	return b.compactFailures == 1
}

// fresh returns the history items not yet in the request view (lead, the
// AGENTS.md block, opens an empty view) and the encoded-prefix cache.
func (b *contextBudget) fresh(lead []protocol.Item) ([]protocol.Item, *model.PrefixCache) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.view) == 0 {
		b.view = append(b.view, lead...)
	}
	if b.prefix == nil {
		b.prefix = model.NewPrefixCache()
	}
	return b.history[len(b.view)-len(lead) : len(b.history) : len(b.history)], b.prefix
}

// extendView appends converted items to the request view and returns it
// (capped: a caller's append never writes into it).
func (b *contextBudget) extendView(converted []protocol.Item) []protocol.Item {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.view = append(b.view, converted...)
	return b.view[:len(b.view):len(b.view)]
}

// historyTokens is the thread's current context size in tokens.
func (t *Thread) historyTokens() int64 {
	t.mu.Lock()
	fixed := approxTokens(t.instructions) + agentsTokens(t.agentsCtx)
	t.mu.Unlock()
	return t.budget.tokens(fixed)
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
	if !t.budget.mayAutoCompact() {
		return false
	}
	limit := t.e.autoCompactLimit(ctx, t.model())
	return limit > 0 && t.historyTokens() >= limit
}

// ContextLimits is modelName's context window and the token count at
// which a thread on it compacts by itself (0 when not known), for a front
// end's "NN% context left" gauge and its warning before compaction. It may
// ask the provider's model list once per model (cached): call it off any
// UI loop.
func (e *Engine) ContextLimits(ctx context.Context, modelName string) (window, compactAt int64) {
	window = e.opts.ContextWindow
	if window <= 0 {
		window = e.windows.lookup(ctx, e.opts.Client, modelName)
	}
	return window, e.autoCompactLimit(ctx, modelName)
}

// agentsTokens estimates the AGENTS.md block every request carries.
func agentsTokens(items []protocol.Item) int64 {
	var n int64
	for _, it := range items {
		n += itemTokens(it)
	}
	return n
}
