package engine

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

// stallingClient streams part of a reply, then waits for the turn to be
// cancelled, like a provider mid-answer when the user presses Ctrl+C.
type stallingClient struct{ streamed chan struct{} }

func (c stallingClient) Stream(ctx context.Context, _ model.Request, onDelta func(model.Delta)) (model.Response, error) {
	onDelta(model.Delta{Kind: model.DeltaText, Text: "The parser "})
	onDelta(model.Delta{Kind: model.DeltaText, Text: "lives in"})
	c.streamed <- struct{}{}
	<-ctx.Done()
	return model.Response{}, ctx.Err()
}

func (stallingClient) Models(context.Context) ([]model.ModelInfo, error) { return nil, nil }
func (stallingClient) Name() string                                      { return "stalling" }

// TestInterruptWhileStreamingKeepsThePartialReply: the part of the final
// message streamed before an interrupt stays in history, rollout and events.
func TestInterruptWhileStreamingKeepsThePartialReply(t *testing.T) {
	streamed := make(chan struct{}, 1)
	env := newEnv(t, nil, func(o *Options) { o.Client = stallingClient{streamed: streamed} })
	env.send("where is the parser?")
	<-streamed
	if err := env.e.Submit(protocol.Op{Type: protocol.OpInterrupt, ThreadID: env.root}); err != nil {
		t.Fatal(err)
	}
	env.waitFor("interrupted", func(ev protocol.Event) bool {
		return ev.ThreadID == env.root && ev.Type == protocol.EventStatusChanged && ev.Status.Kind == protocol.StatusInterrupted
	})
	const want = "The parser lives in"
	isPartial := func(it protocol.Item) bool {
		return it.Type == protocol.ItemMessage && it.Role == protocol.RoleAssistant && it.Content == want && it.Interrupted
	}
	// The partial reply, then the notice the interrupt leaves.
	h := env.e.History(env.root)
	if len(h) < 2 || !isPartial(h[len(h)-2]) || !h[len(h)-1].IsTurnAbortedNotice() {
		t.Fatalf("history does not end with the interrupted reply and the notice: %+v", h)
	}
	if evs := env.all(func(ev protocol.Event) bool {
		return ev.Type == protocol.EventMessage && ev.Message == want && ev.Interrupted
	}); len(evs) != 1 {
		t.Fatalf("%d interrupted message events", len(evs))
	}
	env.e.thread(env.root).sync()
	sess, err := rollout.Read(env.e.thread(env.root).info().RolloutPath)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, it := range sess.Items {
		if isPartial(it) {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("rollout has %d interrupted replies, want 1: %+v", n, sess.Items)
	}
}

// replayingClient stalls its first request like stallingClient, then
// answers every later one, keeping what each was sent.
type replayingClient struct {
	stallingClient
	mu   sync.Mutex
	reqs []model.Request
}

func (c *replayingClient) Stream(ctx context.Context, req model.Request, onDelta func(model.Delta)) (model.Response, error) {
	c.mu.Lock()
	c.reqs = append(c.reqs, req)
	first := len(c.reqs) == 1
	c.mu.Unlock()
	if first {
		return c.stallingClient.Stream(ctx, req, onDelta)
	}
	return text("ok"), nil
}

// TestInterruptedTurnLeavesANoticeForTheModel ports Codex's
// agents.interrupt_message (codex-rs/core/src/tasks/mod.rs,
// emit_aborted_turn: a turn interrupted by the user records a
// <turn_aborted> marker before TurnAborted; config_tests.rs
// load_config_resolves_agent_interrupt_message: false turns it off). The
// next request carries the interrupted reply, then the notice, then the
// new input; with the key off, no notice.
func TestInterruptedTurnLeavesANoticeForTheModel(t *testing.T) {
	for _, off := range []bool{false, true} {
		c := &replayingClient{stallingClient: stallingClient{streamed: make(chan struct{}, 1)}}
		env := newEnv(t, nil, func(o *Options) { o.Client = c; o.NoInterruptMessage = off })
		env.send("where is the parser?")
		<-c.streamed
		if err := env.e.Submit(protocol.Op{Type: protocol.OpInterrupt, ThreadID: env.root}); err != nil {
			t.Fatal(err)
		}
		if st := env.rootFinal(1); st.Kind != protocol.StatusInterrupted {
			t.Fatalf("status %v, want interrupted", st)
		}
		env.send("go on")
		if st := env.rootFinal(2); st.Message != "ok" {
			t.Fatalf("second turn: %v", st)
		}
		c.mu.Lock()
		items := c.reqs[len(c.reqs)-1].Items
		c.mu.Unlock()
		var seen []string
		for _, it := range items {
			switch {
			case it.IsTurnAbortedNotice():
				seen = append(seen, "notice")
				if !strings.Contains(it.Content, "interrupted the previous turn on purpose") || !strings.HasSuffix(it.Content, "</turn_aborted>") || it.Role != protocol.RoleUser {
					t.Errorf("notice %+v", it)
				}
			case it.Type == protocol.ItemMessage && it.Role == protocol.RoleAssistant:
				seen = append(seen, "reply:"+it.Content)
			case it.Type == protocol.ItemMessage && it.Role == protocol.RoleUser && !it.IsGroveNotice():
				seen = append(seen, "user:"+it.Content)
			}
		}
		want := "user:where is the parser?,reply:The parser lives in,notice,user:go on"
		if off {
			want = "user:where is the parser?,reply:The parser lives in,user:go on"
		}
		if got := strings.Join(seen, ","); !strings.HasSuffix(got, want) {
			t.Errorf("interrupt_message off=%v: the next request holds %s, want it to end %s", off, got, want)
		}
	}
}
