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

	"github.com/spf13/cobra"

	"github.com/grovecli/grove/core/app"
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
	f.registerResume(cmd, g) // adds `exec resume` with its flags
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
	s, err := openExecSession(ctx, g, f, resumeID)
	if err != nil {
		return err
	}
	reportHooks(stderr, s.HookSet(), f.bypassHookTrust)
	if s.Provider().Demo && mode == "" {
		fmt.Fprintf(stderr, "grove: --demo: running the offline demo model in %s\n", s.Cwd())
	}
	if mode == "" {
		printExecHeader(stderr, s, s.Root())
	}
	// A reader that goes away (`grove exec --json | head -n1`) makes
	// writes fail with EPIPE instead of killing grove with SIGPIPE; exec
	// then stops the session and exits 0, as Codex does. Notify, not
	// Ignore: the commands grove runs keep the default SIGPIPE.
	pipeSig := make(chan os.Signal, 1)
	signal.Notify(pipeSig, syscall.SIGPIPE)
	defer signal.Stop(pipeSig)
	r := &execRun{s: s, mode: mode, term: terminatorFrom(ctx), stderr: stderr}
	r.write, r.finish = execOutput(mode, s.Root(), stdout, stderr)
	// Ctrl+C interrupts the root; a second one stops. SIGTERM and SIGHUP
	// arrive as the end of ctx (see terminator).
	r.sigs = make(chan os.Signal, 2)
	signal.Notify(r.sigs, os.Interrupt)
	defer signal.Stop(r.sigs)

	if err := startRequiredMCP(ctx, s); err != nil {
		s.StopEvents() // nothing reads them from here on
		closeExec(s, context.Background(), "required MCP server failed")
		return err
	}
	turn := app.Turn{Text: prompt}
	if len(f.images) > 0 {
		turn.Text, turn.Items = "", imageInput(prompt, f.images)
	}
	if resumeID != "" {
		// Codex runs a resumed session's turn in the current directory
		// (-C or the shell's), and the session is then that directory's.
		turn.Settings = &protocol.TurnOverrides{Cwd: s.Cwd()}
	}
	if err := s.Turn(turn); err != nil {
		s.StopEvents()
		closeExec(s, context.Background(), "submit failed")
		return err
	}
	if err := r.follow(ctx); err != nil {
		if errors.Is(err, syscall.EPIPE) {
			return stopForGoneReader(s)
		}
		r.close()
		return err
	}
	r.awaitFinalStatus()
	r.close()
	if err := r.finish(r.final); err != nil && !errors.Is(err, syscall.EPIPE) {
		return fmt.Errorf("write event: %w", err)
	}
	return r.result(f, stdout)
}

// openExecSession opens exec's session: headless, subscribed before its
// root starts (new, resumed or forked).
func openExecSession(ctx context.Context, g *globalFlags, f *execFlags, resumeID string) (*app.Session, error) {
	schema, err := f.schema()
	if err != nil {
		return nil, err
	}
	meta, err := f.turnMetadata()
	if err != nil {
		return nil, err
	}
	return openSession(ctx, g, sessionOpts{
		headless: true, approveWorkdirs: f.approveWorkdirs, refuseDemo: true, ephemeral: f.ephemeral, outputSchema: schema,
		bypassHookTrust: f.bypassHookTrust, originator: execOriginator(), turnMetadata: meta,
		start: app.Start{Resume: resumeID, Fork: f.fork, Subscribe: true},
	})
}

// closeExec closes exec's session, logging why.
func closeExec(s *app.Session, ctx context.Context, reason string) {
	logging.L().Info("exec: closing the session", "reason", reason)
	_ = s.Close(ctx)
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

// imageInput is the prompt as the root's input with -i images attached.
func imageInput(prompt string, images []string) []protocol.InputItem {
	items := []protocol.InputItem{{Type: "text", Text: prompt}}
	for _, img := range images {
		if abs, err := filepath.Abs(img); err == nil {
			img = abs
		}
		items = append(items, protocol.InputItem{Type: "local_image", Path: img})
	}
	return items
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
