package execenv

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// A host's link can stall without closing: a network partition, a
// SIGSTOPped ControlMaster, exec-server or sshd session. Nothing then
// arrives and nothing errors, so every remote call has a local bound:
// keep-alives find a dead link, a command's kill has a deadline, and the
// result says what grove knows (the command's fate, when the host could
// not be asked, is unknown). The next connection kills what the lost one
// left running and reports it (registry.go).

// LinkTimes bound how long grove waits on a host.
type LinkTimes struct {
	// KeepAlive is how often a connected session pings its exec-server.
	KeepAlive time.Duration
	// DeadAfter is how long a ping may go unanswered before the host is
	// declared unreachable and the connection dropped.
	DeadAfter time.Duration
	// KillGrace is how long a command whose time ran out (or that was
	// interrupted) may take to report its exit after grove asked the host
	// to kill it.
	KillGrace time.Duration
}

// DefaultLinkTimes: a stalled link is found within 30 s (ssh's own
// ServerAliveInterval 15 × CountMax 2 agrees), a kill answered within 10 s.
var DefaultLinkTimes = LinkTimes{KeepAlive: 10 * time.Second, DeadAfter: 20 * time.Second, KillGrace: 10 * time.Second}

// ErrFateUnknown marks a command whose host stopped answering while it
// ran: grove cannot say whether it finished, failed, or still runs.
var ErrFateUnknown = errors.New("the command's fate is unknown")

// linkError ends a session whose link stopped answering.
type linkError struct {
	host, why string
}

func (e *linkError) Error() string {
	return fmt.Sprintf("host %s unreachable (%s)", e.host, e.why)
}

// fateError is a command's result when its session ended under it.
type fateError struct{ cause error }

func (e *fateError) Error() string {
	return e.cause.Error() + "; the command's fate is unknown: it may have finished or may still be running on the host (grove kills what is left when it reconnects and says what that was)"
}

func (e *fateError) Is(target error) bool { return target == ErrFateUnknown }
func (e *fateError) Unwrap() error        { return e.cause }

// abandoner is a transport that can mark its link as stalled, so the next
// dial does not reuse it (an ssh ControlMaster that stopped answering
// would hang every new session multiplexed on it).
type abandoner interface{ Abandon() }

// keepAlive pings the server every times.KeepAlive until the session
// ends; an unanswered ping ends it as unreachable. A server too old to
// know ping answers an error: then only ssh's own keep-alives watch the
// link.
func (s *session) keepAlive(times LinkTimes) {
	tick := time.NewTicker(times.KeepAlive)
	defer tick.Stop()
	for {
		select {
		case <-s.done:
			return
		case <-tick.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), times.DeadAfter)
		err := s.call(ctx, mPing, struct{}{}, nil)
		cancel()
		var re *remoteError
		switch {
		case err == nil:
		case errors.As(err, &re):
			return
		case errors.Is(err, context.DeadlineExceeded):
			s.linkDead(fmt.Sprintf("no answer to a keep-alive for %s", times.DeadAfter))
			return
		default:
			return // the session failed and said why
		}
	}
}

// linkDead ends the session as unreachable, and keeps the next dial off
// the stalled link.
func (s *session) linkDead(why string) {
	if a, ok := s.t.(abandoner); ok {
		a.Abandon()
	}
	s.fail(&linkError{host: s.host, why: why})
}

// lostSession is a session that ended with commands in flight: the next
// connection asks the host to kill them (exec/reap).
type lostSession struct {
	token    string
	commands []string
}

// reapLost asks the new session's server to kill what each lost session
// left running, and returns what to tell the model.
func (s *session) reapLost(ctx context.Context, lost []lostSession) string {
	var b strings.Builder
	for _, l := range lost {
		var res reapResult
		err := s.call(ctx, mReap, reapParams{Session: l.token}, &res)
		cmds := strings.Join(quoteAll(l.commands), ", ")
		switch {
		case err != nil:
			fmt.Fprintf(&b, "grove reconnected to host %s; it could not check what the lost connection left running (%v): %s may still be running there\n", s.host, err, cmds)
		case res.Killed && len(res.Commands) == 0:
			fmt.Fprintf(&b, "grove reconnected to host %s; the lost connection's server was still shutting down, with %s no longer running\n", s.host, cmds)
		case res.Killed:
			fmt.Fprintf(&b, "grove reconnected to host %s and killed what the lost connection left running: %s\n", s.host, strings.Join(quoteAll(res.Commands), ", "))
		case res.Found && len(res.Commands) > 0:
			fmt.Fprintf(&b, "grove reconnected to host %s; the lost connection's server had ended, with %s still running then (killed with it)\n", s.host, strings.Join(quoteAll(res.Commands), ", "))
		default:
			fmt.Fprintf(&b, "grove reconnected to host %s; the lost connection's server had ended cleanly, killing %s if it still ran\n", s.host, cmds)
		}
	}
	return b.String()
}

func quoteAll(cmds []string) []string {
	out := make([]string, len(cmds))
	for i, c := range cmds {
		out[i] = fmt.Sprintf("%q", c)
	}
	return out
}
