package main

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/grovecli/grove/core/demo"
	"github.com/grovecli/grove/core/pricing"
	"github.com/grovecli/grove/core/visible"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
	"github.com/grovecli/grove/tui"
)

// tuiStart says how the TUI opens.
type tuiStart struct {
	resumeID string
	fork     bool // continue a copy of resumeID as a new session
	picker   bool
}

// demoChunkDelay paces the demo model so a person can watch the tree grow.
const demoChunkDelay = 25 * time.Millisecond

// backend adapts a session's engine to the TUI's Backend interface.
type backend struct {
	*session
}

func (b backend) Info() tui.SessionInfo {
	o := b.eng.Options()
	cwd := o.Cwd
	for _, t := range b.eng.Threads() {
		if t.ID == b.eng.RootID() {
			cwd = t.Cwd // a resumed session keeps its own directory
		}
	}
	return tui.SessionInfo{
		Model: o.Model, Provider: o.Provider, Demo: o.Demo, Cwd: cwd,
		ApprovalPolicy: o.ApprovalPolicy, SandboxMode: o.Sandbox.Mode, Home: b.cfg.Home,
		ReadOnly: b.readOnly, Warnings: b.OpeningWarnings(),
	}
}

func (b backend) Subscribe() (<-chan protocol.Event, func()) { return b.eng.Subscribe() }
func (b backend) Submit(op protocol.Op) error                { return b.eng.Submit(op) }
func (b backend) Threads() []protocol.ThreadInfo             { return b.eng.Threads() }
func (b backend) History(id protocol.ThreadID) []protocol.Item {
	return b.eng.History(id)
}
func (b backend) RootID() protocol.ThreadID { return b.eng.RootID() }
func (b backend) PendingApprovals() []protocol.ApprovalRequest {
	return b.eng.PendingApprovals()
}

func runTUI(ctx context.Context, g *globalFlags, prompt string, start tuiStart) error {
	if ctx == nil {
		ctx = context.Background()
	}
	// current is the open session; open runs in TUI commands (goroutines).
	var mu sync.Mutex
	var current *session
	var prices pricing.Table // the open session's (config.toml's model_prices over grove's)
	cur := func() *session {
		mu.Lock()
		defer mu.Unlock()
		return current
	}
	fork := start.fork // only the session named on the command line
	open := func(resumeID string) (tui.Backend, error) {
		s, err := newSession(ctx, g, sessionOpts{demoDelay: demoChunkDelay, resume: resumeID})
		if err != nil {
			return nil, err
		}
		_, err = s.startOrFork(resumeID, fork)
		fork = false
		if err != nil {
			err = s.viewIfLocked(resumeID, err)
		}
		if err != nil {
			_ = s.eng.Shutdown(context.Background())
			s.removeScratch()
			return nil, err
		}
		tab, err := s.cfg.Prices() // validated when the config loaded
		if err != nil {
			_ = s.eng.Shutdown(context.Background())
			s.removeScratch()
			return nil, err
		}
		mu.Lock()
		old := current
		current, prices = s, tab
		mu.Unlock()
		if old != nil {
			// The previous session winds down in the background.
			go func() {
				_ = old.eng.Shutdown(context.Background())
				old.removeScratch()
			}()
		}
		return backend{s}, nil
	}
	var first tui.Backend
	var err error
	home := ""
	reviewHooksBeforeTUI(g, os.Stdin, os.Stderr)
	if !start.picker {
		if first, err = open(start.resumeID); err != nil {
			return err
		}
		if cur().provider.Demo && prompt == "" && start.resumeID == "" {
			prompt = demo.Prompt
		}
	} else {
		// The picker needs only the home directory; the session opens on Enter.
		cfg, err := loadConfig(g)
		if err != nil {
			return err
		}
		if entries, _, err := rollout.ListSessions(cfg.Home, 0, 1); err == nil && len(entries) == 0 {
			return fmt.Errorf("no sessions to resume in %s yet", cfg.Home)
		}
		// No session is open until one is picked: the TUI starts in the picker.
		first = nil
		home = cfg.Home
	}
	exit, err := tui.Run(ctx, tui.Options{
		Backend:       first,
		Notify:        notifyConfig(g),
		Home:          home,
		InitialPrompt: prompt,
		StartInPicker: start.picker,
		OpenSession:   func(id string) (tui.Backend, error) { return open(id) },
		NewSession:    func() (tui.Backend, error) { return open("") },
		Cost: func(model string, u protocol.TokenUsage) (float64, bool) {
			mu.Lock()
			defer mu.Unlock()
			return prices.Cost(model, u)
		},
		ContextLimits: func(model string) (int64, int64) {
			if current := cur(); current != nil {
				return current.eng.ContextLimits(ctx, model)
			}
			return 0, 0
		},
		Processes: func() []tui.ProcessInfo {
			current := cur()
			if current == nil {
				return nil
			}
			var out []tui.ProcessInfo
			for _, s := range current.eng.Sessions("") {
				out = append(out, tui.ProcessInfo{ID: s.ID, Agent: s.Owner, Command: s.Command, Started: s.Started})
			}
			return out
		},
		KillProcess: func(id int) error {
			if current := cur(); current != nil {
				return current.eng.KillSession(id)
			}
			return fmt.Errorf("no session is open")
		},
		MCPServers: func() []string {
			if current := cur(); current != nil && current.mcp != nil {
				return mcpStatusLines(current.mcp.Status())
			}
			return nil
		},
		Models: func() []string {
			current := cur()
			if current == nil {
				return nil
			}
			ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			list, err := current.eng.Options().Client.Models(ctx)
			if err != nil {
				return nil
			}
			names := make([]string, len(list))
			for i, m := range list {
				names[i] = m.ID
			}
			return names
		},
	})
	if last := cur(); last != nil {
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = last.eng.Shutdown(shutdownCtx)
		last.removeScratch()
	}
	// The screen is restored: leave the last answer and the way back in
	// the terminal's scrollback.
	if perr := exit.Print(visible.NewWriter(os.Stdout)); err == nil {
		err = perr
	}
	return err
}

func notifyConfig(g *globalFlags) tui.NotifyConfig {
	c := tui.NotifyConfig{Method: "auto", Condition: "unfocused"}
	conf, err := loadConfig(g)
	if err != nil {
		return c
	}
	kinds, err := conf.NotificationKinds()
	if err == nil {
		c.Kinds = kinds
	}
	c.Method, c.Condition = conf.TUI.NotificationMethod, conf.TUI.NotificationCondition
	return c
}

func newResumeCmd(g *globalFlags) *cobra.Command {
	var last, fork bool
	cmd := &cobra.Command{
		Use:   "resume [--last | ID]",
		Short: "Resume a past session (opens the session picker without an id)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) == 1:
				return runTUI(cmd.Context(), g, "", tuiStart{resumeID: args[0], fork: fork})
			case last:
				cfg, err := loadConfig(g)
				if err != nil {
					return err
				}
				e, err := rollout.LastSession(cfg.Home)
				if err != nil {
					return err
				}
				return runTUI(cmd.Context(), g, "", tuiStart{resumeID: string(e.ID), fork: fork})
			}
			if fork {
				return fmt.Errorf("--fork needs a session: an id, or --last")
			}
			return runTUI(cmd.Context(), g, "", tuiStart{picker: true})
		},
	}
	cmd.Flags().BoolVar(&last, "last", false, "resume the most recent session without the picker")
	cmd.Flags().BoolVar(&fork, "fork", false, "continue a copy of the session as a new one (for a session another grove is using)")
	return cmd
}
