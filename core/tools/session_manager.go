package tools

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/grovecli/grove/core/execenv"
	"github.com/grovecli/grove/protocol"
)

// Unified exec limits, Codex's (codex-rs/core/src/unified_exec/mod.rs).
const (
	// MaxSessions is how many sessions one grove keeps; starting one more
	// closes the least recently used (an exited one first).
	MaxSessions = 64
	// sessionProtected is how many most recently used sessions pruning
	// never picks.
	sessionProtected = 8
	// sessionBufferBytes bounds the output a session holds between two
	// reads (head and tail kept, the middle dropped).
	sessionBufferBytes = 1 << 20
)

// SessionManager keeps the commands that are still running after the call
// that started them: exec_command's sessions (polled and written to with
// write_stdin) and the background shells of Claude Code's Bash
// (run_in_background, read with BashOutput, ended with KillShell).
//
// A session belongs to the agent (thread) that started it: only its owner
// finds it (Lookup), interrupting the agent interrupts its sessions
// (InterruptOwner), closing the agent kills them (CloseOwner), and
// Shutdown kills them all. Every session's process tree dies with it (the
// sandbox helper's PID namespace or subreaper), and with grove even on
// kill -9 (the helper watches grove's pidfd). At most MaxSessions live at
// once per manager; starting one more closes the least recently used.
//
// The engine owns one manager and hands it to the tools in Env.Sessions.
// All methods are safe for concurrent use.
type SessionManager struct {
	max int

	mu       sync.Mutex
	sessions map[int]*Session
	closed   bool
	wg       sync.WaitGroup // interrupts in progress
}

// NewSessionManager returns an empty manager holding at most max sessions
// (0: MaxSessions).
func NewSessionManager(max int) *SessionManager {
	if max <= 0 {
		max = MaxSessions
	}
	return &SessionManager{max: max, sessions: map[int]*Session{}}
}

// SessionRequest is one command to start as a session.
type SessionRequest struct {
	// Owner is the agent the session belongs to.
	Owner protocol.ThreadID
	// Command is the command line as the model wrote it (shown in /ps).
	Command string
	// Exec is what the backend starts: argv, env, policy, cwd, dir, TTY.
	// Output is set by the manager.
	Exec execenv.ExecRequest
	// Backend is where it runs (nil: this machine).
	Backend execenv.Backend
	// Timeout kills it after this long (0: it runs until closed).
	Timeout time.Duration
}

// SessionInfo describes a session for a listing (/ps, Claude's /bashes).
type SessionInfo struct {
	ID       int
	Owner    protocol.ThreadID
	Command  string
	TTY      bool
	Started  time.Time
	LastUsed time.Time
	// Exited is set once the process ended (its last output may still
	// be unread); ExitCode is then its code.
	Exited   bool
	ExitCode int
}

// ErrSessionsClosed is Start's error after Shutdown.
var ErrSessionsClosed = errors.New("grove is shutting down: no new sessions")

// Start starts req's command and returns its session, registered under a
// new id; its output collects in the session until read. It closes the
// least recently used session first when MaxSessions are live.
func (m *SessionManager) Start(req SessionRequest) (*Session, error) {
	backend := req.Backend
	if backend == nil {
		backend = execenv.NewLocal()
	}
	var ctx context.Context
	var cancel context.CancelFunc
	if req.Timeout > 0 {
		ctx, cancel = context.WithTimeout(context.Background(), req.Timeout)
	} else {
		ctx, cancel = context.WithCancel(context.Background())
	}
	s := newSession(req, cancel)
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		cancel()
		return nil, ErrSessionsClosed
	}
	pruned := m.pruneLocked()
	s.id = m.newIDLocked()
	s.mgr = m
	m.sessions[s.id] = s
	m.mu.Unlock()
	if pruned != nil {
		pruned.kill()
	}
	exec := req.Exec
	exec.Output = s
	proc, err := backend.Start(ctx, exec)
	if err != nil {
		m.remove(s)
		cancel()
		return nil, err
	}
	s.mu.Lock()
	s.proc = proc
	s.mu.Unlock()
	go s.follow(ctx, proc) // ends when the process does; cancel (kill) ends it
	return s, nil
}

// newIDLocked picks an unused id in Codex's range, at random: a model
// cannot guess another agent's session (and Lookup refuses it anyway).
func (m *SessionManager) newIDLocked() int {
	for {
		id := 1000 + rand.IntN(99000)
		if m.sessions[id] == nil {
			return id
		}
	}
}

// pruneLocked removes and returns the session to close when the manager
// is full: never one of the sessionProtected most recently used; among the
// rest the least recently used exited one, else the least recently used.
func (m *SessionManager) pruneLocked() *Session {
	if len(m.sessions) < m.max {
		return nil
	}
	all := make([]*Session, 0, len(m.sessions))
	for _, s := range m.sessions {
		all = append(all, s)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].lastUsedAt().After(all[j].lastUsedAt()) })
	candidates := all[min(sessionProtected, len(all)):]
	slices.Reverse(candidates) // least recently used first
	victim := candidates[0]
	for _, s := range candidates {
		if s.hasExited() {
			victim = s
			break
		}
	}
	delete(m.sessions, victim.id)
	return victim
}

// Lookup returns owner's session id. Another agent's session is refused
// as unknown (an agent learns nothing about the others'), and so is one
// that ended and was read to its end.
func (m *SessionManager) Lookup(owner protocol.ThreadID, id int) (*Session, error) {
	m.mu.Lock()
	s := m.sessions[id]
	m.mu.Unlock()
	if s == nil || s.owner != owner {
		//lint:ignore ST1005 Codex's wording ("Unknown process id"), the text models trained in Codex expect
		return nil, fmt.Errorf("Unknown process id %d: no running session has this id (it ended and its output was read, it was closed, or it belonged to a grove process that has exited: sessions do not survive a restart or resume); start the command again with exec_command", id)
	}
	s.touch()
	return s, nil
}

// List describes owner's sessions ("" lists every agent's), oldest first.
func (m *SessionManager) List(owner protocol.ThreadID) []SessionInfo {
	m.mu.Lock()
	var out []SessionInfo
	for _, s := range m.sessions {
		if owner == "" || s.owner == owner {
			out = append(out, s.Info())
		}
	}
	m.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Started.Equal(out[j].Started) {
			return out[i].Started.Before(out[j].Started)
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// Kill closes owner's session id, killing its process tree ("" as owner:
// any agent's, for the user's /ps kill).
func (m *SessionManager) Kill(owner protocol.ThreadID, id int) error {
	m.mu.Lock()
	s := m.sessions[id]
	if s == nil || (owner != "" && s.owner != owner) {
		m.mu.Unlock()
		return fmt.Errorf("no session %d", id)
	}
	delete(m.sessions, id)
	m.mu.Unlock()
	s.kill()
	return nil
}

// interruptGrace is how long an interrupted session has to end after its
// Ctrl+C before its tree is killed.
const interruptGrace = 2 * time.Second

// InterruptOwner interrupts every session of owner (the agent was
// interrupted): Ctrl+C (SIGINT) first, so a program can stop cleanly, and
// its whole tree killed interruptGrace later if anything is left. It
// returns at once; Shutdown waits for what it started.
func (m *SessionManager) InterruptOwner(owner protocol.ThreadID) {
	for _, s := range m.owned(owner, true) {
		m.wg.Add(1)
		go func() {
			defer m.wg.Done()
			s.stop()
		}()
	}
}

// CloseOwner kills every session of owner: the agent was closed.
func (m *SessionManager) CloseOwner(owner protocol.ThreadID) {
	for _, s := range m.owned(owner, true) {
		s.kill()
	}
}

// Shutdown kills every session and refuses new ones; it returns once
// their processes are gone.
func (m *SessionManager) Shutdown() {
	m.mu.Lock()
	m.closed = true
	all := make([]*Session, 0, len(m.sessions))
	for id, s := range m.sessions {
		all = append(all, s)
		delete(m.sessions, id)
	}
	m.mu.Unlock()
	for _, s := range all {
		m.wg.Add(1)
		go func() {
			defer m.wg.Done()
			s.kill()
		}()
	}
	m.wg.Wait()
}

// owned returns owner's sessions, removing them from the manager when
// remove is set.
func (m *SessionManager) owned(owner protocol.ThreadID, remove bool) []*Session {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []*Session
	for id, s := range m.sessions {
		if s.owner == owner {
			out = append(out, s)
			if remove {
				delete(m.sessions, id)
			}
		}
	}
	return out
}

// remove forgets s (it ended and was read to its end, or failed to start).
func (m *SessionManager) remove(s *Session) {
	m.mu.Lock()
	if m.sessions[s.id] == s {
		delete(m.sessions, s.id)
	}
	m.mu.Unlock()
}
