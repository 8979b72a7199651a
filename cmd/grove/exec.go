package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/grovecli/grove/core/logging"
	"github.com/grovecli/grove/core/visible"
	"github.com/grovecli/grove/protocol"
)

func newExecCmd(g *globalFlags) *cobra.Command {
	f := &execFlags{}
	cmd := &cobra.Command{
		Use:   "exec [flags] [PROMPT|-]",
		Short: "Run one agent session headless; print the final answer on stdout",
		Long: `Run a session without the TUI, as codex exec does (same flags). The final
message goes to stdout; progress goes to stderr. --json prints Codex's JSONL
events instead (thread.started, turn.*, item.*); --json=grove (or --events)
prints grove's own events. Nobody can answer approvals: the approval policy
decides, and the model is told why a call was refused.

The prompt is the argument; without one (or with "-") it is read from stdin.
With both an argument and piped stdin, stdin is appended as a <stdin> block.

exec never runs the offline demo model unless --demo asks for it: with no
provider configured and no API key it fails, naming what is missing.

Exit status: 0 when the root agent completed, 1 on error, 130 when interrupted.`,
		Args:    cobra.ArbitraryArgs,
		Version: groveVersion,
		RunE: func(cmd *cobra.Command, args []string) error {
			if i := resumeWordAt(args); i >= 0 {
				// Codex's `exec PROMPT resume [ID | --last]`.
				return execResume(cmd, g, f, args[i+1:], args[:i])
			}
			if f.resumeLast.set || f.resumeAll {
				return errors.New("--last and --all go with `exec resume`")
			}
			if f.fork && f.resume == "" && len(args) > 0 {
				// Codex's `exec --fork ID PROMPT`: the first argument is
				// the session to fork.
				f.resume, args = args[0], args[1:]
			}
			return execCommand(cmd, g, f, args, f.resume)
		},
	}
	f.register(cmd.PersistentFlags())
	f.registerResume(cmd, g)
	cmd.AddCommand(newExecResumeCmd(g, f))
	cmd.AddCommand(newExecReviewCmd(g, f))
	return cmd
}

// execCommand runs exec (or exec resume) once its flags are parsed.
func execCommand(cmd *cobra.Command, g *globalFlags, f *execFlags, args []string, resumeID string) error {
	if _, err := f.mode(); err != nil {
		return err
	}
	if err := f.apply(g); err != nil {
		return err
	}
	prompt, err := f.readPrompt(cmd, args)
	if err != nil {
		return err
	}
	return runExec(cmd.Context(), g, f, prompt, resumeID, cmd.OutOrStdout(), cmd.ErrOrStderr())
}

func runExec(ctx context.Context, g *globalFlags, f *execFlags, prompt, resumeID string, stdout, stderr io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	term := terminatorFrom(ctx)
	mode, err := f.mode()
	if err != nil {
		return err
	}
	// Text mode prints the model's words and progress to a terminal: as
	// text with every control character visible. The JSON modes carry
	// them escaped already (and -o writes the bytes as they are).
	stderr = visible.NewWriter(stderr)
	if mode == "" {
		stdout = visible.NewWriter(stdout)
	}
	schema, err := f.schema()
	if err != nil {
		return err
	}
	meta, err := f.turnMetadata()
	if err != nil {
		return err
	}
	s, err := newSession(ctx, g, sessionOpts{
		headless: true, approveWorkdirs: f.approveWorkdirs, refuseDemo: true, ephemeral: f.ephemeral, outputSchema: schema,
		resume: f.resume, bypassHookTrust: f.bypassHookTrust, originator: execOriginator(), turnMetadata: meta,
	})
	if err != nil {
		return err
	}
	reportHooks(stderr, s.hookSet, f.bypassHookTrust)
	events, cancel := s.eng.Subscribe()
	defer cancel()
	rootID, err := s.startOrFork(resumeID, f.fork)
	if err != nil {
		_ = s.shutdown(context.Background(), "start failed")
		return err
	}
	if s.provider.Demo && mode == "" {
		fmt.Fprintf(stderr, "grove: --demo: running the offline demo model in %s\n", s.cwd)
	}
	if mode == "" {
		printExecHeader(stderr, s, rootID)
	}
	// A reader that goes away (`grove exec --json | head -n1`) makes
	// writes fail with EPIPE instead of killing grove with SIGPIPE; exec
	// then stops the session and exits 0, as Codex does. Notify, not
	// Ignore: the commands grove runs keep the default SIGPIPE.
	pipeSig := make(chan os.Signal, 1)
	signal.Notify(pipeSig, syscall.SIGPIPE)
	defer signal.Stop(pipeSig)
	write, finish := execOutput(mode, rootID, stdout, stderr)
	// Ctrl+C interrupts the root; a second one stops. SIGTERM and SIGHUP
	// arrive as the end of ctx (see terminator).
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)

	if err := s.startRequiredMCP(ctx); err != nil {
		_ = s.shutdown(context.Background(), "required MCP server failed")
		return err
	}
	turn := userTurn(rootID, prompt, f.images)
	if resumeID != "" {
		// Codex runs a resumed session's turn in the current directory
		// (-C or the shell's), and the session is then that directory's.
		turn.Overrides = &protocol.TurnOverrides{Cwd: s.cwd}
	}
	if err := s.eng.Submit(turn); err != nil {
		_ = s.shutdown(context.Background(), "submit failed")
		return err
	}
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
			if err := write(ev); err != nil {
				if errors.Is(err, syscall.EPIPE) {
					return s.stopForGoneReader(rootID, events)
				}
				return fmt.Errorf("write event: %w", err)
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
			_ = write(ev)
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
			if mode != "" {
				_ = write(ev)
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
	if err := finish(final); err != nil && !errors.Is(err, syscall.EPIPE) {
		return fmt.Errorf("write event: %w", err)
	}
	if final.Kind == protocol.StatusCompleted && final.Message != "" {
		lastMessage = final.Message
	}
	if err := f.writeLastMessage(lastMessage, stderr); err != nil {
		return err
	}
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
		if mode == "" {
			fmt.Fprintln(stdout, lastMessage)
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

// execOutput picks what exec prints for each event: Codex's JSONL,
// grove's own events, or the progress trace on stderr. finish ends the
// output once the root's final status is known.
func execOutput(mode string, root protocol.ThreadID, stdout, stderr io.Writer) (write func(protocol.Event) error, finish func(protocol.AgentStatus) error) {
	switch mode {
	case "codex":
		cj := newCodexJSONL(stdout, root)
		cj.started()
		return cj.event, cj.finish
	case "grove":
		enc := json.NewEncoder(stdout)
		return func(ev protocol.Event) error { return enc.Encode(ev) }, func(protocol.AgentStatus) error { return nil }
	}
	return func(ev protocol.Event) error {
		printProgress(stderr, root, ev)
		return nil
	}, func(protocol.AgentStatus) error { return nil }
}

// userTurn is the prompt as the root's input, with -i images attached.
func userTurn(root protocol.ThreadID, prompt string, images []string) protocol.Op {
	op := protocol.Op{Type: protocol.OpUserTurn, ThreadID: root, Text: prompt}
	if len(images) > 0 {
		op.Text = ""
		op.Items = []protocol.InputItem{{Type: "text", Text: prompt}}
		for _, img := range images {
			if abs, err := filepath.Abs(img); err == nil {
				img = abs
			}
			op.Items = append(op.Items, protocol.InputItem{Type: "local_image", Path: img})
		}
	}
	return op
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
