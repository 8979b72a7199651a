package engine

import (
	"context"
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
	h := env.e.History(env.root)
	if len(h) == 0 || !isPartial(h[len(h)-1]) {
		t.Fatalf("history does not end with the interrupted reply: %+v", h)
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
