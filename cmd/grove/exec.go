package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/grovecli/grove/core/logging"
	"github.com/grovecli/grove/protocol"
)

type execFlags struct {
	json            bool
	resume          string
	fork            bool
	approveWorkdirs bool
}

func newExecCmd(g *globalFlags) *cobra.Command {
	f := &execFlags{}
	cmd := &cobra.Command{
		Use:   "exec [flags] PROMPT|-",
		Short: "Run one agent session headless; print the final answer on stdout",
		Long: `Run a session without the TUI. The final message goes to stdout; progress
goes to stderr (or, with --json, every event goes to stdout as one JSON object
per line). Nobody can answer approvals: the approval policy decides, and the
model is told why a call was refused. PROMPT "-" reads the prompt from stdin.

Exit status: 0 when the root agent completed, 1 on error, 130 when interrupted.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			prompt := joinPrompt(args)
			if prompt == "-" {
				b, err := io.ReadAll(cmd.InOrStdin())
				if err != nil {
					return fmt.Errorf("read prompt from stdin: %w", err)
				}
				prompt = strings.TrimSpace(string(b))
			}
			if strings.TrimSpace(prompt) == "" {
				return errors.New("empty prompt")
			}
			return runExec(cmd.Context(), g, f, prompt, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	cmd.Flags().BoolVar(&f.json, "json", false, "print every event as one JSON object per line")
	cmd.Flags().StringVar(&f.resume, "resume", "", "continue the session with this id (or unique prefix)")
	cmd.Flags().BoolVar(&f.fork, "fork", false, "with --resume: continue a copy of the session as a new one (the original is left as it is)")
	cmd.Flags().BoolVar(&f.approveWorkdirs, "approve-workdirs", false, "approve sub-agents' working_directory changes")
	return cmd
}

func runExec(ctx context.Context, g *globalFlags, f *execFlags, prompt string, stdout, stderr io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	term := terminatorFrom(ctx)
	s, err := newSession(ctx, g, sessionOpts{headless: true, approveWorkdirs: f.approveWorkdirs})
	if err != nil {
		return err
	}
	events, cancel := s.eng.Subscribe()
	defer cancel()
	rootID, err := s.startOrFork(f.resume, f.fork)
	if err != nil {
		_ = s.shutdown(context.Background(), "start failed")
		return err
	}
	if s.provider.Demo && !f.json {
		fmt.Fprintf(stderr, "grove: no model configured: running the offline demo model in %s\n", s.cwd)
	}
	// Ctrl+C interrupts the root; a second one stops. SIGTERM and SIGHUP
	// arrive as the end of ctx (see terminator).
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)

	if err := s.eng.SubmitText(rootID, prompt); err != nil {
		_ = s.shutdown(context.Background(), "submit failed")
		return err
	}
	enc := json.NewEncoder(stdout)
	interrupted := false
	stopping := false // a signal asked to stop now: no waiting for a final status
	var final protocol.AgentStatus
	var lastMessage string
	// awaiting: the root's turn ended while inbox work was pending (a
	// sub-agent working, a notification the root was not yet woken for);
	// exec ends once the root is idle again and nothing is pending.
	awaiting := false
loop:
	for {
		select {
		case <-sigs:
			if interrupted {
				term.BeginShutdown(130)
				stopping = true
				break loop
			}
			interrupted = true
			logging.L().Info("exec: interrupt requested", "thread", string(rootID))
			fmt.Fprintln(stderr, "grove: interrupting (press ctrl+c again to stop now)")
			_ = s.eng.Submit(protocol.Op{Type: protocol.OpInterrupt, ThreadID: rootID})
		case <-ctx.Done():
			// Terminated (SIGTERM/SIGHUP): interrupt everything and close.
			interrupted, stopping = true, true
			_ = s.eng.Submit(protocol.Op{Type: protocol.OpInterrupt, ThreadID: rootID})
			break loop
		case ev, ok := <-events:
			if !ok {
				break loop
			}
			if f.json {
				if err := enc.Encode(ev); err != nil {
					return fmt.Errorf("write event: %w", err)
				}
			} else {
				printProgress(stderr, rootID, ev)
			}
			if m, err := ev.Msg(); err == nil && ev.ThreadID == rootID {
				switch m := m.(type) {
				case protocol.AgentMessageMsg:
					lastMessage = m.Text
				case protocol.StatusChangedMsg:
					final = m.Status
				case protocol.TurnCompletedMsg:
					if s.eng.Settled() {
						break loop
					}
					awaiting = true
				}
			}
			if awaiting {
				if rep, _ := s.eng.Report(rootID); !rep.Status.IsActive() && (s.eng.Settled() || rep.Status.Kind != protocol.StatusCompleted) {
					final = rep.Status
					break loop
				}
			}
		}
	}
	// Wait for the final status event that follows turn_completed.
	deadline := time.After(2 * time.Second)
	for !stopping && (final.Kind == "" || final.Kind == protocol.StatusRunning || final.Kind == protocol.StatusPendingInit) {
		select {
		case ev, ok := <-events:
			if !ok {
				goto done
			}
			if f.json {
				_ = enc.Encode(ev)
			}
			if m, err := ev.Msg(); err == nil && ev.ThreadID == rootID {
				if sc, ok := m.(protocol.StatusChangedMsg); ok {
					final = sc.Status
				}
			}
		case <-deadline:
			goto done
		}
	}
done:
	// Events keep flowing while the tree closes: they are drained (and
	// printed with --json) so that no shutdown step waits on this reader.
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		for ev := range events {
			if f.json {
				_ = enc.Encode(ev)
			}
		}
	}()
	grace := 10 * time.Second
	if stopping {
		grace = 5 * time.Second
	}
	shutdownCtx, stop := context.WithTimeout(context.Background(), grace)
	defer stop()
	reason := "finished"
	if stopping {
		reason = "signal"
	}
	_ = s.shutdown(shutdownCtx, reason)
	cancel() // ends the subscription if the bus did not close in time
	<-drained
	if err := term.Err(); err != nil {
		return err
	}
	if lost := s.eng.Unrecorded(); len(lost) > 0 && final.Kind == protocol.StatusCompleted {
		// A session whose record is incomplete is no success: a resume
		// would not know what it did.
		return exitError{code: 1, msg: "the session's record is incomplete: " + strings.Join(lost, "; ")}
	}
	switch final.Kind {
	case protocol.StatusCompleted:
		if !f.json {
			msg := final.Message
			if msg == "" {
				msg = lastMessage
			}
			fmt.Fprintln(stdout, msg)
		}
		return nil
	case protocol.StatusErrored:
		return exitError{code: 1, msg: final.Message}
	case protocol.StatusInterrupted:
		return exitError{code: 130, msg: "interrupted"}
	}
	if interrupted {
		return exitError{code: 130, msg: "interrupted"}
	}
	return exitError{code: 1, msg: fmt.Sprintf("session ended without a final answer (status %s)", final.Kind)}
}

// printProgress writes a one-line trace of notable events to stderr. It
// switches on typed messages: a malformed event is skipped, never
// dereferenced.
func printProgress(w io.Writer, root protocol.ThreadID, ev protocol.Event) {
	m, err := ev.Msg()
	if err != nil {
		return
	}
	who := ""
	if ev.ThreadID != root {
		who = "[" + ev.ThreadID.Short() + "] "
	}
	switch m := m.(type) {
	case protocol.ThreadStartedMsg:
		if m.Thread.ParentID != "" {
			role := m.Thread.AgentType
			if role == "" {
				role = "default"
			}
			fmt.Fprintf(w, "%s↳ spawned %s agent %s in %s\n", who, role, ev.ThreadID.Short(), m.Thread.Cwd)
		}
	case protocol.ToolCallBeginMsg:
		fmt.Fprintf(w, "%s• %s %s\n", who, m.Call.Name, clip(m.Call.Arguments, 100))
	case protocol.ToolCallEndMsg:
		if m.Call.IsError {
			fmt.Fprintf(w, "%s  ✗ %s: %s\n", who, m.Call.Name, clip(m.Call.Output, 200))
		} else if m.Call.Summary != "" {
			fmt.Fprintf(w, "%s  ✓ %s\n", who, m.Call.Summary)
		}
	case protocol.ApprovalResolvedMsg:
		fmt.Fprintf(w, "%s? %s %s%s → %s\n", who, m.Request.Kind, m.Request.Command, m.Request.Dir, m.Decision)
	case protocol.BackgroundMsg:
		if m.Event.IsFinal || m.Event.Warning {
			fmt.Fprintf(w, "%s%s\n", who, clip(m.Event.Message, 200))
		}
	case protocol.ErrorMsg:
		fmt.Fprintf(w, "%serror: %s\n", who, m.Text)
	case protocol.WarningMsg:
		fmt.Fprintf(w, "%swarning: %s\n", who, m.Text)
	case protocol.StreamRetryMsg:
		fmt.Fprintf(w, "%swarning: %s\n", who, m.Text)
	}
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len([]rune(s)) > n {
		return string([]rune(s)[:n-1]) + "…"
	}
	return s
}
