// Package app is grove's session core: what every front end (the TUI,
// `grove exec`, the app-server, ACP) opens, runs turns on and closes. A
// Session owns the engine and everything built around it — the MCP
// servers, the hooks runner, the SSH hosts, the debug log's event reader,
// the `notify` program and the directories the session made — and Close
// releases all of it in one order, on every path (a normal exit, an error
// half way through Open, a signal). See docs/architecture.md, "Session
// lifecycle".
package app

import (
	"context"
	"os"
	"sync"
	"time"

	"github.com/grovecli/grove/core/config"
	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/core/hooks"
	"github.com/grovecli/grove/core/logging"
	"github.com/grovecli/grove/core/mcp"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
)

// Session is one open session: an engine with its root thread started
// (new, resumed or forked) and the resources it runs with.
type Session struct {
	eng    *engine.Engine
	client model.Client
	cfg    *config.Config
	prov   config.Resolved
	cwd    string
	root   protocol.ThreadID
	// readOnly says why the session is open read-only (another grove
	// writes it); "" when it is writable.
	readOnly string
	// events is the front end's subscription, taken before the root
	// started (Start.Subscribe) and relayed by one goroutine; closing
	// eventsQuit ends the relay, eventsDone closes when it has ended.
	events     <-chan protocol.Event
	eventsQuit chan struct{}
	eventsDone chan struct{}
	quitOnce   sync.Once

	mcp     *mcp.Manager
	hookSet hooks.Set
	hooks   *hooks.Runner
	hosts   *hostSet
	// stopLog and waitLog end the debug log's event reader.
	stopLog, waitLog func()
	// finishNotify lets the `notify` program of the last turn run.
	finishNotify func(context.Context)
	// scratch (the demo's project) and ephemeralHome (--ephemeral's
	// session files) are removed by Close; dirs is told.
	scratch, ephemeralHome string
	dirs                   DirTracker

	warnMu   sync.Mutex
	warnings []string
	// opening counts the warnings found while opening (config, login
	// environment, skills): the TUI shows those as notices at start.
	opening int

	closeOnce sync.Once
	closeErr  error
}

// DirTracker is the process's list of directories sessions made, so that
// an exit that skips Close (a crash path, a second signal) can still
// remove them. nil: the session removes its directories itself, untold.
type DirTracker interface {
	Track(dir string)
	Remove(dir string)
}

// maxWarnings bounds the kept warnings (a broken disk repeats).
const maxWarnings = 100

// Engine is the session's engine. Front ends run turns through Turn and
// end the session through Close, never Engine().Shutdown.
func (s *Session) Engine() engine.FrontEnd { return s.eng }

// Config is the configuration the session was opened with.
func (s *Session) Config() *config.Config { return s.cfg }

// Provider is the session's model provider.
func (s *Session) Provider() config.Resolved { return s.prov }

// Cwd is the directory the session was opened in.
func (s *Session) Cwd() string { return s.cwd }

// Root is the root thread Open started, resumed or forked.
func (s *Session) Root() protocol.ThreadID { return s.root }

// ReadOnly says why the session is a read-only view ("" when writable).
func (s *Session) ReadOnly() string { return s.readOnly }

// MCP is the session's MCP manager (nil for a session over a bare engine).
func (s *Session) MCP() *mcp.Manager { return s.mcp }

// HookSet is every hook found for the session, with its trust.
func (s *Session) HookSet() hooks.Set { return s.hookSet }

// Events is the subscription taken before the root started when
// Start.Subscribe asked for it (nil otherwise). It closes once Close has
// shut the engine down and the front end has read every event queued
// before (so the last status events reach the client); a front end that
// subscribed reads it until it closes, or Close waits for its ctx.
func (s *Session) Events() <-chan protocol.Event { return s.events }

// subscribe starts the relay of the front end's subscription.
func (s *Session) subscribe() {
	in, cancel := s.eng.Subscribe()
	out := make(chan protocol.Event)
	s.events, s.eventsQuit, s.eventsDone = out, make(chan struct{}), make(chan struct{})
	go func() {
		defer close(s.eventsDone)
		defer cancel()
		defer close(out)
		for {
			var ev protocol.Event
			var ok bool
			select {
			case ev, ok = <-in:
				if !ok {
					return
				}
			case <-s.eventsQuit:
				return
			}
			select {
			case out <- ev:
			case <-s.eventsQuit:
				return
			}
		}
	}()
}

// StopEvents ends the Events subscription now, for a front end that
// stops reading before Close (the channel closes; what was queued is
// dropped).
func (s *Session) StopEvents() { s.dropEvents() }

// dropEvents ends the relay without waiting for a reader.
func (s *Session) dropEvents() {
	if s.eventsQuit != nil {
		s.quitOnce.Do(func() { close(s.eventsQuit) })
		<-s.eventsDone
	}
}

// awaitEventsRead waits until the front end has read the last event of
// the closed engine, or ctx ends (then the rest is dropped).
func (s *Session) awaitEventsRead(ctx context.Context) {
	if s.eventsDone == nil {
		return
	}
	select {
	case <-s.eventsDone:
	case <-ctx.Done():
		s.dropEvents()
	}
}

// OpeningWarnings are the problems found while opening the session (a
// broken SKILL.md, a config key grove ignores).
func (s *Session) OpeningWarnings() []string {
	s.warnMu.Lock()
	defer s.warnMu.Unlock()
	return append([]string(nil), s.warnings[:s.opening]...)
}

// Warnings returns the problems found while opening the session and the
// engine's warnings since, oldest first. The engine publishes some before
// any UI subscribes (while a session resumes): this is where those stay.
func (s *Session) Warnings() []string {
	s.warnMu.Lock()
	defer s.warnMu.Unlock()
	return append([]string(nil), s.warnings...)
}

func (s *Session) addWarning(w string) {
	s.warnMu.Lock()
	defer s.warnMu.Unlock()
	if len(s.warnings) < maxWarnings {
		s.warnings = append(s.warnings, w)
	}
}

// Close ends the session and releases what it owns, in this order: the
// engine (every thread interrupted, rollouts flushed and closed, the bus
// closed), the front end's subscription (once it has read the last
// events, or ctx ends), the model client's idle connections, the MCP
// servers, the hooks still
// running, the last `notify` run, the SSH hosts (and their ControlMaster),
// the directories the session made, and last the debug log's reader (so
// the log sees the shutdown). Each step skips what was never built, so
// Open's error paths use it too. ctx bounds the engine's shutdown and the
// notify run. Later calls return the first call's result.
func (s *Session) Close(ctx context.Context) error {
	s.closeOnce.Do(func() { s.closeErr = s.close(ctx) })
	return s.closeErr
}

func (s *Session) close(ctx context.Context) error {
	l := logging.L()
	begin := time.Now()
	var err error
	if s.eng != nil {
		l.Info("shutdown: begin")
		err = s.eng.Shutdown(ctx)
		l.Info("shutdown: engine closed", "duration_ms", time.Since(begin).Milliseconds(), "err", err)
	}
	s.awaitEventsRead(ctx)
	if c, ok := s.client.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections() // the provider's kept-alive connections
	}
	if s.mcp != nil {
		step := time.Now()
		_ = s.mcp.Close() // MCP servers stop with the session
		l.Info("shutdown: MCP servers stopped", "duration_ms", time.Since(step).Milliseconds())
	}
	if s.hooks != nil {
		s.hooks.Close() // async hooks still running stop with the session
	}
	if s.finishNotify != nil {
		s.finishNotify(ctx)
	}
	s.hosts.close()
	s.removeDir(s.scratch)
	s.removeDir(s.ephemeralHome)
	if s.stopLog != nil {
		step := time.Now()
		s.stopLog()
		s.waitLog()
		l.Info("shutdown: done", "log_drain_ms", time.Since(step).Milliseconds(), "duration_ms", time.Since(begin).Milliseconds())
	}
	return err
}

// removeDir deletes a directory the session made ("" : none).
func (s *Session) removeDir(dir string) {
	switch {
	case dir == "":
	case s.dirs != nil:
		s.dirs.Remove(dir)
	default:
		if err := os.RemoveAll(dir); err != nil {
			logging.L().Warn("session: remove directory", "dir", dir, "err", err)
		}
	}
}
