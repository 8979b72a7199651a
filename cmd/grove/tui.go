package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/grovecli/grove/core/app"
	"github.com/grovecli/grove/core/demo"
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

// backend adapts a session to the TUI's Backend interface.
type backend struct {
	*app.Session
}

func (b backend) Info() tui.SessionInfo {
	eng := b.Engine()
	o := eng.Options()
	cwd := o.Cwd
	for _, t := range eng.Threads() {
		if t.ID == eng.RootID() {
			cwd = t.Cwd // a resumed session keeps its own directory
		}
	}
	return tui.SessionInfo{
		Model: o.Model, Provider: o.Provider, Demo: o.Demo, Cwd: cwd,
		ApprovalPolicy: o.ApprovalPolicy, SandboxMode: o.Sandbox.Mode, Home: b.Config().Home,
		ReadOnly: b.ReadOnly(), Warnings: b.OpeningWarnings(),
	}
}

func (b backend) Subscribe() (<-chan protocol.Event, func()) { return b.Engine().Subscribe() }
func (b backend) Submit(op protocol.Op) error                { return b.Engine().Submit(op) }
func (b backend) Threads() []protocol.ThreadInfo             { return b.Engine().Threads() }
func (b backend) History(id protocol.ThreadID) []protocol.Item {
	return b.Engine().History(id)
}
func (b backend) RootID() protocol.ThreadID { return b.Engine().RootID() }
func (b backend) PendingApprovals() []protocol.ApprovalRequest {
	return b.Engine().PendingApprovals()
}

func runTUI(ctx context.Context, g *globalFlags, prompt string, start tuiStart) error {
	if ctx == nil {
		ctx = context.Background()
	}
	ts := &tuiSessions{ctx: ctx, g: g, fork: start.fork}
	var first tui.Backend
	home := ""
	reviewHooksBeforeTUI(g, os.Stdin, os.Stderr)
	if !start.picker {
		b, err := ts.open(start.resumeID)
		if err != nil {
			return err
		}
		first = b
		if ts.cur().Provider().Demo && prompt == "" && start.resumeID == "" {
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
		home = cfg.Home
	}
	opts := ts.options()
	opts.Backend, opts.Notify, opts.Home = first, notifyConfig(g), home
	if conf, err := loadConfig(g); err == nil {
		opts.Inline = conf.TUI.Inline(os.Getenv)
	}
	opts.InitialPrompt, opts.StartInPicker = prompt, start.picker
	exit, err := tui.Run(ctx, opts)
	ts.closeLast()
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
