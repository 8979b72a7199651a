package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/grovecli/grove/core/app"
	"github.com/grovecli/grove/core/pricing"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/tui"
)

// tuiSessions is the TUI's open session: the TUI opens another from its
// picker or /new (in its command goroutines), and the previous one is
// closed — all of it, hosts and log reader included — in the background.
type tuiSessions struct {
	ctx  context.Context
	g    *globalFlags
	fork bool // only the session named on the command line

	mu      sync.Mutex
	current *app.Session
	prices  pricing.Table // the open session's (config.toml's model_prices over grove's)
	closing sync.WaitGroup
}

func (ts *tuiSessions) cur() *app.Session {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.current
}

// open opens a session (resumeID "" : a new one) and makes it current.
func (ts *tuiSessions) open(resumeID string) (tui.Backend, error) {
	ts.mu.Lock()
	fork := ts.fork
	ts.fork = false
	ts.mu.Unlock()
	s, err := openSession(ts.ctx, ts.g, sessionOpts{demoDelay: demoChunkDelay,
		start: app.Start{Resume: resumeID, Fork: fork, ViewIfLocked: !fork}})
	if err != nil {
		return nil, err
	}
	tab, err := s.Config().Prices() // validated when the config loaded
	if err != nil {
		_ = s.Close(context.Background())
		return nil, err
	}
	ts.mu.Lock()
	old := ts.current
	ts.current, ts.prices = s, tab
	ts.mu.Unlock()
	if old != nil {
		// The previous session winds down in the background; closeLast
		// waits for it.
		ts.closing.Add(1)
		go func() {
			defer ts.closing.Done()
			_ = old.Close(context.Background())
		}()
	}
	return backend{s}, nil
}

// closeLast closes the session open when the TUI ended and waits for the
// ones closing in the background.
func (ts *tuiSessions) closeLast() {
	if last := ts.cur(); last != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = last.Close(ctx)
	}
	ts.closing.Wait()
}

// options are the TUI's hooks into the open session.
func (ts *tuiSessions) options() tui.Options {
	return tui.Options{
		OpenSession: func(id string) (tui.Backend, error) { return ts.open(id) },
		NewSession:  func() (tui.Backend, error) { return ts.open("") },
		Cost: func(model string, u protocol.TokenUsage) (float64, bool) {
			ts.mu.Lock()
			defer ts.mu.Unlock()
			return ts.prices.Cost(model, u)
		},
		ContextLimits: func(model string) (int64, int64) {
			if s := ts.cur(); s != nil {
				return s.Engine().ContextLimits(ts.ctx, model)
			}
			return 0, 0
		},
		Processes: func() []tui.ProcessInfo {
			s := ts.cur()
			if s == nil {
				return nil
			}
			var out []tui.ProcessInfo
			for _, p := range s.Engine().Sessions("") {
				out = append(out, tui.ProcessInfo{ID: p.ID, Agent: p.Owner, Command: p.Command, Started: p.Started})
			}
			return out
		},
		KillProcess: func(id int) error {
			if s := ts.cur(); s != nil {
				return s.Engine().KillSession(id)
			}
			return fmt.Errorf("no session is open")
		},
		MCPServers: func() []string {
			if s := ts.cur(); s != nil && s.MCP() != nil {
				return mcpStatusLines(s.MCP().Status())
			}
			return nil
		},
		Models: ts.models,
	}
}

// models lists the provider's models for the TUI's /model.
func (ts *tuiSessions) models() []string {
	s := ts.cur()
	if s == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ts.ctx, 5*time.Second)
	defer cancel()
	list, err := s.Engine().Options().Client.Models(ctx)
	if err != nil {
		return nil
	}
	names := make([]string, len(list))
	for i, m := range list {
		names[i] = m.ID
	}
	return names
}
