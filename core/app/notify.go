package app

import (
	"context"
	"encoding/json"
	"os/exec"
	"sync"
	"time"

	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/core/logging"
	"github.com/grovecli/grove/core/tools"
	"github.com/grovecli/grove/protocol"
)

// turnNotification is the JSON Codex passes to its `notify` program as the
// last argument (codex-rs/core/src/user_notification.rs, kebab-case keys).
type turnNotification struct {
	Type                 string   `json:"type"`
	ThreadID             string   `json:"thread-id"`
	TurnID               string   `json:"turn-id"`
	Cwd                  string   `json:"cwd"`
	InputMessages        []string `json:"input-messages"`
	LastAssistantMessage *string  `json:"last-assistant-message,omitempty"`
}

// notifyTimeout bounds one notify program: a hung notifier must not keep
// grove from exiting.
const notifyTimeout = 30 * time.Second

// startNotify runs argv (config `notify`) with the agent-turn-complete JSON
// after each turn of a root thread, as Codex does. It owns one reader
// goroutine and the programs it starts; finish (called once the engine
// has shut down, so the bus is closing) lets the reader see the last turn
// and the programs end, and stops both when ctx ends first.
func startNotify(eng *engine.Engine, argv []string, cwd string) (finish func(ctx context.Context)) {
	if len(argv) == 0 {
		return func(context.Context) {}
	}
	events, cancel := eng.Subscribe()
	ctx, cancelRuns := context.WithCancel(context.Background())
	var runs sync.WaitGroup
	done := make(chan struct{})
	go func() {
		defer close(done)
		inputs := map[protocol.ThreadID][]string{}
		roots := map[protocol.ThreadID]bool{}
		for ev := range events {
			m, err := ev.Msg()
			if err != nil {
				continue
			}
			switch m := m.(type) {
			case protocol.ThreadStartedMsg:
				roots[ev.ThreadID] = m.Thread.ParentID == ""
			case protocol.UserMessageMsg:
				inputs[ev.ThreadID] = append(inputs[ev.ThreadID], m.Text)
			case protocol.TurnCompletedMsg:
				if !roots[ev.ThreadID] {
					continue
				}
				n := turnNotification{Type: "agent-turn-complete", ThreadID: string(ev.ThreadID), TurnID: ev.TurnID, Cwd: cwd, InputMessages: inputs[ev.ThreadID]}
				if n.InputMessages == nil {
					n.InputMessages = []string{}
				}
				if m.LastMessage != "" {
					n.LastAssistantMessage = &m.LastMessage
				}
				delete(inputs, ev.ThreadID)
				runs.Add(1)
				go func() {
					defer runs.Done()
					runNotify(ctx, argv, cwd, n)
				}()
			}
		}
	}()
	return func(stopCtx context.Context) {
		select {
		case <-done:
		case <-stopCtx.Done():
			cancel()
			<-done
		}
		ended := make(chan struct{})
		go func() { runs.Wait(); close(ended) }()
		select {
		case <-ended:
		case <-stopCtx.Done():
			cancelRuns()
			<-ended
		}
		cancelRuns()
	}
}

// runNotify starts the program once; its failure is logged, never fatal
// (the turn it reports on is over).
func runNotify(ctx context.Context, argv []string, cwd string, n turnNotification) {
	payload, err := json.Marshal(n)
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, notifyTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], append(append([]string(nil), argv[1:]...), string(payload))...)
	cmd.Dir = cwd
	cmd.Env = tools.PolicyEnviron()
	if out, err := cmd.CombinedOutput(); err != nil {
		logging.L().Warn("notify program failed", "program", argv[0], "err", err, "output", clipLine(string(out), 200))
	}
}
