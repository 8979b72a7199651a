package engine

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/model/modeltest"
	"github.com/grovecli/grove/protocol"
)

// inputTexts returns the text of every input item of a captured Responses
// request, in order (messages' parts, calls' arguments, outputs).
func inputTexts(req modeltest.CapturedRequest) []string {
	input, _ := req.Body["input"].([]any)
	var out []string
	for _, raw := range input {
		it, _ := raw.(map[string]any)
		var b strings.Builder
		if parts, ok := it["content"].([]any); ok {
			for _, p := range parts {
				if pm, ok := p.(map[string]any); ok {
					s, _ := pm["text"].(string)
					b.WriteString(s)
				}
			}
		}
		for _, k := range []string{"arguments", "output"} {
			if s, ok := it[k].(string); ok {
				b.WriteString(s)
			}
		}
		out = append(out, b.String())
	}
	return out
}

// inputTokens counts a request's input as the fake provider reports it:
// 4 bytes a token over the items' text (instructions and tools left out,
// so a test's limit is about the conversation alone).
func inputTokens(req modeltest.CapturedRequest) int64 {
	var n int64
	for _, s := range inputTexts(req) {
		n += approxTokens(s)
	}
	return n
}

func isCompactionRequest(req modeltest.CapturedRequest) bool {
	texts := inputTexts(req)
	return len(texts) > 0 && strings.HasPrefix(texts[len(texts)-1], "You are performing a CONTEXT CHECKPOINT COMPACTION")
}

// compactingProvider is a Responses provider that summarises when asked
// ("SUMMARY-<n>") and otherwise answers "ok <n>", reporting input usage.
type compactingProvider struct {
	srv       *modeltest.Server
	mu        sync.Mutex
	summaries int
	// refuse, when set, answers a non-compaction request with a context
	// length error while it returns true.
	refuse func(req modeltest.CapturedRequest) bool
}

const contextExceededBody = `{"error":{"message":"This model's maximum context length is 1000 tokens. However, your messages resulted in 1200 tokens.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}}`

func newCompactingProvider(t *testing.T) *compactingProvider {
	p := &compactingProvider{srv: modeltest.NewServer(t)}
	p.srv.Handle(func(req modeltest.CapturedRequest) modeltest.Reply {
		usage := protocol.TokenUsage{InputTokens: inputTokens(req), OutputTokens: 5}
		if isCompactionRequest(req) {
			p.mu.Lock()
			p.summaries++
			n := p.summaries
			p.mu.Unlock()
			return modeltest.Reply{Text: fmt.Sprintf("SUMMARY-%d", n), Usage: usage}
		}
		if p.refuse != nil && p.refuse(req) {
			return modeltest.Reply{Status: 400, Body: contextExceededBody}
		}
		return modeltest.Reply{Text: fmt.Sprintf("ok %d", len(p.srv.Requests())), Usage: usage}
	})
	return p
}

func (p *compactingProvider) client(t *testing.T) model.Client {
	c, err := model.New(model.ProviderConfig{Name: "modeltest", BaseURL: p.srv.URL(), WireAPI: "responses", RetryBaseDelay: 1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// recordingObserver keeps the compactions it hears.
type recordingObserver struct {
	mu        sync.Mutex
	pre, post []CompactInfo
}

func (o *recordingObserver) PreCompact(_ context.Context, c CompactInfo) {
	o.mu.Lock()
	o.pre = append(o.pre, c)
	o.mu.Unlock()
}

func (o *recordingObserver) PostCompact(_ context.Context, c CompactInfo) {
	o.mu.Lock()
	o.post = append(o.post, c)
	o.mu.Unlock()
}

// With model_auto_compact_token_limit set low, a 300-turn session keeps
// every request near the limit, carries the latest summary forward, and
// the observer hears each compaction.
func TestAutoCompactionKeepsEveryRequestNearTheLimit(t *testing.T) {
	const limit = 2000
	p := newCompactingProvider(t)
	obs := &recordingObserver{}
	env := newEnv(t, nil, func(o *Options) {
		o.Client = p.client(t)
		o.AutoCompactTokenLimit = limit
		o.Compaction = obs
	})
	ask := strings.Repeat("word ", 80) // 100 tokens a user message
	for i := 0; i < 300; i++ {
		env.send(fmt.Sprintf("ask %d %s", i, ask))
		if st := env.rootFinal(i); st.Kind != protocol.StatusCompleted {
			t.Fatalf("turn %d ended %v", i, st)
		}
	}
	compactions := env.all(func(ev protocol.Event) bool { return ev.Type == protocol.EventContextCompacted })
	if len(compactions) < 10 {
		t.Fatalf("%d compactions in 300 turns of ~105 tokens with a %d limit", len(compactions), limit)
	}
	lastSummary := ""
	for i, req := range p.srv.Requests() {
		texts := inputTexts(req)
		// One prompt cache per conversation, summary requests included.
		if req.Body["prompt_cache_key"] != string(env.root) {
			t.Fatalf("request %d prompt_cache_key %v, want the thread id", i, req.Body["prompt_cache_key"])
		}
		// One turn's growth past the limit at most: the check runs before
		// each request.
		if n := inputTokens(req); n > limit+200 {
			t.Fatalf("request %d carries %d tokens, limit %d", i, n, limit)
		}
		if isCompactionRequest(req) {
			lastSummary = fmt.Sprintf("SUMMARY-%d", countSummaries(p.srv.Requests()[:i+1]))
			continue
		}
		if lastSummary != "" && !strings.Contains(strings.Join(texts, "\n"), compactSummaryPrefix+"\n"+lastSummary) {
			t.Fatalf("request %d does not carry the latest summary %s", i, lastSummary)
		}
	}
	c := compactions[0].Compaction
	if c.Trigger != protocol.CompactAuto || c.TokensBefore < limit || c.TokensAfter >= c.TokensBefore {
		t.Fatalf("first compaction %+v", c)
	}
	obs.mu.Lock()
	defer obs.mu.Unlock()
	if len(obs.pre) != len(compactions) || len(obs.post) != len(compactions) || obs.post[0].Summary != "SUMMARY-1" || obs.post[0].TokensAfter != c.TokensAfter {
		t.Fatalf("observer heard pre %d post %d (first %+v), want %d", len(obs.pre), len(obs.post), obs.post, len(compactions))
	}
}

func countSummaries(reqs []modeltest.CapturedRequest) int {
	n := 0
	for _, r := range reqs {
		if isCompactionRequest(r) {
			n++
		}
	}
	return n
}

// A request the model refuses as too long compacts the history and is
// retried once; a second refusal ends the turn with the error instead of
// looping.
func TestContextLengthRefusalCompactsAndRetriesOnce(t *testing.T) {
	p := newCompactingProvider(t)
	var refusals int
	var mu sync.Mutex
	p.refuse = func(req modeltest.CapturedRequest) bool {
		all := strings.Join(inputTexts(req), "\n")
		mu.Lock()
		defer mu.Unlock()
		if strings.Contains(all, "too long once") && refusals == 0 || strings.Contains(all, "always too long") {
			refusals++
			return true
		}
		return false
	}
	env := newEnv(t, nil, func(o *Options) { o.Client = p.client(t) })
	env.send("first question")
	env.rootFinal(1) // rootFinal(0) is the idle root before any turn
	env.send("too long once")
	if st := env.rootFinal(2); st.Kind != protocol.StatusCompleted || !strings.HasPrefix(st.Message, "ok ") {
		t.Fatalf("refused turn ended %+v", st)
	}
	ev := env.waitFor("compaction", func(ev protocol.Event) bool { return ev.Type == protocol.EventContextCompacted })
	if ev.Compaction.Trigger != protocol.CompactContextExceeded {
		t.Fatalf("compaction %+v", ev.Compaction)
	}
	reqs := p.srv.Requests()
	retry := inputTexts(reqs[len(reqs)-1])
	if !strings.Contains(strings.Join(retry, "\n"), "SUMMARY-1") || retry[len(retry)-1] != compactSummaryPrefix+"\nSUMMARY-1" {
		t.Fatalf("retried request input %q", retry)
	}
	env.send("always too long")
	st := env.rootFinal(3)
	if st.Kind != protocol.StatusErrored || !strings.Contains(st.Message, "maximum context length") {
		t.Fatalf("second refusal ended %+v", st)
	}
}

// /compact (OpCompact) on an idle thread replaces its history; the
// rollout records it, so a resumed session continues from the summary.
func TestManualCompactionSurvivesResume(t *testing.T) {
	p := newCompactingProvider(t)
	env := newEnv(t, nil, func(o *Options) { o.Client = p.client(t) })
	env.send("remember the secret word: pineapple")
	env.rootFinal(1) // rootFinal(0) is the idle root before any turn
	env.send("second message")
	env.rootFinal(2)
	if err := env.e.Submit(protocol.Op{Type: protocol.OpCompact, ThreadID: env.root, Text: "keep the secret word"}); err != nil {
		t.Fatal(err)
	}
	ev := env.waitFor("compaction", func(ev protocol.Event) bool { return ev.Type == protocol.EventContextCompacted })
	if ev.Compaction.Trigger != protocol.CompactManual || ev.Compaction.TokensAfter <= 0 {
		t.Fatalf("compaction %+v", ev.Compaction)
	}
	reqs := p.srv.Requests()
	prompt := inputTexts(reqs[len(reqs)-1])
	if !strings.HasSuffix(prompt[len(prompt)-1], "keep the secret word") {
		t.Fatalf("manual instructions not in the prompt: %q", prompt[len(prompt)-1])
	}
	env.rootFinal(3) // the status returns to completed after the compaction
	if err := env.e.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}

	_, env2 := env.resumeInNewEngine()
	env2.send("what now?")
	env2.waitFor("the resumed turn's reply", func(ev protocol.Event) bool { return ev.Type == protocol.EventMessage })
	reqs = p.srv.Requests()
	got := inputTexts(reqs[len(reqs)-1])
	want := []string{"remember the secret word: pineapple", "second message", compactSummaryPrefix + "\nSUMMARY-1", "what now?"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("resumed request input\n%q\nwant\n%q", got, want)
	}
}

// The kept user messages fit their budget: the newest first, the one that
// crosses it cut in the middle, older ones left out.
func TestBuildCompactedHistoryKeepsNewestUserMessages(t *testing.T) {
	users := []protocol.Item{protocol.UserMessage("oldest " + strings.Repeat("a", 400)), protocol.UserMessage("middle " + strings.Repeat("b", 400)), protocol.UserMessage("newest")}
	h := buildCompactedHistory(users, "S", 60)
	if len(h) != 3 || h[1].Content != "newest" || h[2].Content != "S" || !h[2].IsGroveNotice() {
		t.Fatalf("history %+v", h)
	}
	if !strings.HasPrefix(h[0].Content, "middle ") || !strings.Contains(h[0].Content, "tokens truncated") || approxTokens(h[0].Content) > 70 {
		t.Fatalf("crossing message %q", h[0].Content)
	}
	notices := collectUserMessages([]protocol.Item{protocol.GroveNotice("x"), protocol.GroveNotice(compactSummaryPrefix + "\nold"), protocol.AssistantMessage("y"), protocol.AgentMessage("p", "task")})
	if len(notices) != 1 || notices[0].Content != "task" || notices[0].From != "p" {
		t.Fatalf("collected %+v", notices)
	}
}

// The automatic limit: the configured one, else 90% of
// model_context_window, else of the provider's /models metadata, else of
// grove's table; unknown models have none.
func TestAutoCompactLimitSources(t *testing.T) {
	p := newCompactingProvider(t)
	p.srv.SetModels([]string{"listed", "gpt-4o"})
	p.srv.SetContextWindows(map[string]int64{"listed": 10_000})
	e := &Engine{opts: Options{Client: p.client(t)}}
	ctx := context.Background()
	for name, want := range map[string]int64{"listed": 9_000, "gpt-4o": 115_200, "unknown-local": 0} {
		if got := e.autoCompactLimit(ctx, name); got != want {
			t.Errorf("%s: limit %d, want %d", name, got, want)
		}
	}
	if p.srv.ModelsRequests() != 1 {
		t.Errorf("%d /models requests for three lookups; the list is cached", p.srv.ModelsRequests())
	}
	e.opts.ContextWindow = 1000
	if got := e.autoCompactLimit(ctx, "listed"); got != 900 {
		t.Errorf("model_context_window 1000: limit %d", got)
	}
	e.opts.AutoCompactTokenLimit = 123
	if got := e.autoCompactLimit(ctx, "listed"); got != 123 {
		t.Errorf("model_auto_compact_token_limit: limit %d", got)
	}
}

// TestFailingCompactionBacksOffAcrossSteps (issue 36, smaller): an
// automatic compaction that keeps failing is not retried at every later
// step (each attempt costs the provider's retries and their backoff): it
// backs off across steps, and the error is said once.
func TestFailingCompactionBacksOffAcrossSteps(t *testing.T) {
	srv := modeltest.NewServer(t)
	var mu sync.Mutex
	compactions, steps := 0, 0
	srv.Handle(func(req modeltest.CapturedRequest) modeltest.Reply {
		mu.Lock()
		defer mu.Unlock()
		if isCompactionRequest(req) {
			compactions++
			return modeltest.Reply{Status: 400, Body: `{"error":{"message":"summaries are down","type":"invalid_request_error"}}`}
		}
		steps++
		usage := protocol.TokenUsage{InputTokens: inputTokens(req)}
		if steps < 20 {
			return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: fmt.Sprintf("c%d", steps), Name: "no_such_tool", Arguments: "{}"}}, Usage: usage}
		}
		return modeltest.Reply{Text: "done", Usage: usage}
	})
	p := &compactingProvider{srv: srv}
	env := newEnv(t, nil, func(o *Options) {
		o.Client = p.client(t)
		o.AutoCompactTokenLimit = 50
	})
	env.send("work " + strings.Repeat("word ", 100))
	if st := env.rootFinal(1); st.Kind != protocol.StatusCompleted {
		t.Fatalf("turn ended %+v", st)
	}
	failures := env.all(func(ev protocol.Event) bool {
		return ev.Type == protocol.EventError && strings.Contains(ev.Message, "compaction failed")
	})
	mu.Lock()
	defer mu.Unlock()
	if len(failures) != 1 {
		t.Errorf("%d compaction errors shown over %d steps, want one", len(failures), steps)
	}
	if compactions > 8 {
		t.Errorf("%d compaction attempts over %d steps: no back-off across steps", compactions, steps)
	}
}

// TestSummaryTrimsByTheSizeTheRefusalNames (issue 36, smaller): a summary
// request refused as too long is trimmed by the excess the error names,
// in one step, not one item per request (Codex's provider message format).
func TestSummaryTrimsByTheSizeTheRefusalNames(t *testing.T) {
	const limit = 3000
	srv := modeltest.NewServer(t)
	var mu sync.Mutex
	summaries := 0
	srv.Handle(func(req modeltest.CapturedRequest) modeltest.Reply {
		n := inputTokens(req)
		if !isCompactionRequest(req) {
			return modeltest.Reply{Text: "ok", Usage: protocol.TokenUsage{InputTokens: n}}
		}
		mu.Lock()
		summaries++
		mu.Unlock()
		if n > limit {
			body := fmt.Sprintf(`{"error":{"message":"This model's maximum context length is %d tokens. However, your messages resulted in %d tokens.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}}`, limit, n)
			return modeltest.Reply{Status: 400, Body: body}
		}
		return modeltest.Reply{Text: "SUMMARY"}
	})
	p := &compactingProvider{srv: srv}
	env := newEnv(t, nil, func(o *Options) { o.Client = p.client(t) })
	for i := range 60 { // ~6,000 tokens of history, twice the limit
		env.send(fmt.Sprintf("message %d %s", i, strings.Repeat("word ", 80)))
		env.rootFinal(i + 1)
	}
	if err := env.e.Submit(protocol.Op{Type: protocol.OpCompact, ThreadID: env.root}); err != nil {
		t.Fatal(err)
	}
	env.waitFor("compaction", func(ev protocol.Event) bool { return ev.Type == protocol.EventContextCompacted })
	mu.Lock()
	defer mu.Unlock()
	if summaries > 3 {
		t.Fatalf("%d summary requests for a history twice the limit: trimmed item by item", summaries)
	}
}
