package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/grovecli/grove/core/app"
	"github.com/grovecli/grove/core/logging"
	"github.com/grovecli/grove/protocol"
)

// execRun follows exec's one turn: it prints the events, answers Ctrl+C
// and the end of ctx, and keeps what the exit status needs.
type execRun struct {
	s      *app.Session
	mode   string
	term   *terminator
	stderr io.Writer
	sigs   chan os.Signal
	write  func(protocol.Event) error
	finish func(protocol.AgentStatus) error

	interrupted bool
	stopping    bool // a signal asked to stop now: no waiting for a final status
	final       protocol.AgentStatus
	lastMessage string
}

// follow prints the session's events until the root's turn has ended and
// nothing is pending, or a signal stops it. gone: stdout's reader went
// away: an error wrapping EPIPE.
func (r *execRun) follow(ctx context.Context) error {
	root, eng := r.s.Root(), r.s.Engine()
	events := r.s.Events()
	// awaiting: the root's turn ended while inbox work was pending (a
	// sub-agent working, a notification the root was not yet woken for);
	// exec ends once the root is idle again and nothing is pending.
	awaiting := false
	for {
		select {
		case <-r.sigs:
			if r.interrupted {
				r.term.BeginShutdown(130)
				r.stopping = true
				return nil
			}
			r.interrupted = true
			logging.L().Info("exec: interrupt requested", "thread", string(root))
			fmt.Fprintln(r.stderr, "grove: interrupting (press ctrl+c again to stop now)")
			_ = eng.Submit(protocol.Op{Type: protocol.OpInterrupt, ThreadID: root})
		case <-ctx.Done():
			// Terminated (SIGTERM/SIGHUP): interrupt everything and close.
			r.interrupted, r.stopping = true, true
			_ = eng.Submit(protocol.Op{Type: protocol.OpInterrupt, ThreadID: root})
			return nil
		case ev, ok := <-events:
			if !ok {
				return nil
			}
			if err := r.write(ev); err != nil {
				return fmt.Errorf("write event: %w", err)
			}
			if m, err := ev.Msg(); err == nil && ev.ThreadID == root {
				switch m := m.(type) {
				case protocol.AgentMessageMsg:
					r.lastMessage = m.Text
				case protocol.StatusChangedMsg:
					r.final = m.Status
				case protocol.TurnCompletedMsg:
					if eng.Settled() {
						return nil
					}
					awaiting = true
				}
			}
			if awaiting {
				if rep, _ := eng.Report(root); !rep.Status.IsActive() && (eng.Settled() || rep.Status.Kind != protocol.StatusCompleted) {
					r.final = rep.Status
					return nil
				}
			}
		}
	}
}

// awaitFinalStatus waits (2 s at most) for the final status event that
// follows turn_completed.
func (r *execRun) awaitFinalStatus() {
	deadline := time.After(2 * time.Second)
	for !r.stopping && (r.final.Kind == "" || r.final.Kind == protocol.StatusRunning || r.final.Kind == protocol.StatusPendingInit) {
		select {
		case ev, ok := <-r.s.Events():
			if !ok {
				return
			}
			_ = r.write(ev)
			if m, err := ev.Msg(); err == nil && ev.ThreadID == r.s.Root() {
				if sc, ok := m.(protocol.StatusChangedMsg); ok {
					r.final = sc.Status
				}
			}
		case <-deadline:
			return
		}
	}
}

// close closes the session. Events keep flowing while the tree closes:
// they are drained (and printed with --json) so that no shutdown step
// waits on this reader.
func (r *execRun) close() {
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		for ev := range r.s.Events() {
			if r.mode != "" {
				_ = r.write(ev)
			}
		}
	}()
	grace, reason := 10*time.Second, "finished"
	if r.stopping {
		grace, reason = 5*time.Second, "signal"
	}
	ctx, stop := context.WithTimeout(context.Background(), grace)
	defer stop()
	closeExec(r.s, ctx, reason)
	<-drained
}

// result is exec's answer and exit status once the session is closed.
func (r *execRun) result(f *execFlags, stdout io.Writer) error {
	final, lastMessage := r.final, r.lastMessage
	if final.Kind == protocol.StatusCompleted && final.Message != "" {
		lastMessage = final.Message
	}
	// Codex writes -o only for a completed turn: a failed or interrupted
	// run leaves the file as it was (a partial answer is no final one).
	if final.Kind == protocol.StatusCompleted {
		if err := f.writeLastMessage(lastMessage, r.stderr); err != nil {
			return err
		}
	}
	if err := r.term.Err(); err != nil {
		return err
	}
	if lost := r.s.Engine().Unrecorded(); len(lost) > 0 && final.Kind == protocol.StatusCompleted {
		// A session whose record is incomplete is no success: a resume
		// would not know what it did.
		return exitError{code: 1, msg: "the session's record is incomplete: " + strings.Join(lost, "; ")}
	}
	switch final.Kind {
	case protocol.StatusCompleted:
		if r.mode == "" {
			fmt.Fprintln(stdout, lastMessage)
		}
		return nil
	case protocol.StatusErrored:
		return exitError{code: 1, msg: final.Message}
	case protocol.StatusInterrupted:
		return exitError{code: 130, msg: "interrupted"}
	}
	if r.interrupted {
		return exitError{code: 130, msg: "interrupted"}
	}
	return exitError{code: 1, msg: fmt.Sprintf("session ended without a final answer (status %s)", final.Kind)}
}
