package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/grovecli/grove/core/logging"
)

// forceExitAfter bounds a shutdown that a signal started: past it, grove
// exits without waiting further (every rollout line is already written).
const forceExitAfter = 15 * time.Second

// terminator turns SIGTERM and SIGHUP into the Ctrl+C path: the run's
// context is cancelled (interrupt, flush, close), and the process exits
// with 128+signal. Once shutting down, a second signal (SIGINT included)
// or the deadline exits at once.
type terminator struct {
	ctx    context.Context
	cancel context.CancelFunc
	sigs   chan os.Signal
	stopCh chan struct{}
	done   chan struct{}
	exit   func(code int) // os.Exit after closing the log; replaced in tests
	grace  time.Duration  // from the first signal to the forced exit

	mu       sync.Mutex
	code     int // exit status once shutting down, 0 before
	deadline *time.Timer
}

type terminatorKey struct{}

// watchTermination starts watching SIGTERM and SIGHUP for this run.
func watchTermination(parent context.Context) *terminator {
	return watchTerminationWith(parent, func(code int) { stopLogging(code); os.Exit(code) }, forceExitAfter)
}

// watchTerminationWith is watchTermination with the forced exit and its
// deadline supplied (tests).
func watchTerminationWith(parent context.Context, exit func(code int), deadline time.Duration) *terminator {
	ctx, cancel := context.WithCancel(parent)
	t := &terminator{
		cancel: cancel, sigs: make(chan os.Signal, 4),
		stopCh: make(chan struct{}), done: make(chan struct{}),
		exit: exit, grace: deadline,
	}
	t.ctx = context.WithValue(ctx, terminatorKey{}, t)
	signal.Notify(t.sigs, syscall.SIGTERM, syscall.SIGHUP)
	go t.watch()
	return t
}

// terminatorFrom returns the run's terminator (nil in in-process tests).
func terminatorFrom(ctx context.Context) *terminator {
	if ctx == nil {
		return nil
	}
	t, _ := ctx.Value(terminatorKey{}).(*terminator)
	return t
}

// signalExitCode is the conventional status of a death by sig.
func signalExitCode(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 1
}

func (t *terminator) watch() {
	defer close(t.done)
	for {
		select {
		case <-t.stopCh:
			return
		case sig := <-t.sigs:
			if t.Code() != 0 {
				logging.L().Warn("shutdown: second signal, exiting now", "signal", sig.String())
				t.exit(t.Code())
				return
			}
			logging.L().Info("shutdown: signal received", "signal", sig.String())
			t.BeginShutdown(signalExitCode(sig))
			t.cancel()
		}
	}
}

// BeginShutdown records the exit status and arms the deadline; from now
// on any further signal, Ctrl+C included, exits at once.
func (t *terminator) BeginShutdown(code int) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.code != 0 {
		return
	}
	t.code = code
	signal.Notify(t.sigs, os.Interrupt)
	t.deadline = time.AfterFunc(t.grace, func() {
		logging.L().Warn("shutdown: deadline passed, exiting now", "after", t.grace.String())
		t.exit(code)
	})
}

// Code is the exit status a signal asked for, 0 if none.
func (t *terminator) Code() int {
	if t == nil {
		return 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.code
}

// Err is the error a command returns after a signal shut it down.
func (t *terminator) Err() error {
	code := t.Code()
	if code == 0 {
		return nil
	}
	names := map[int]string{129: "SIGHUP", 130: "SIGINT", 143: "SIGTERM"}
	name, ok := names[code]
	if !ok {
		name = syscall.Signal(code - 128).String()
	}
	return exitError{code: code, msg: fmt.Sprintf("terminated by %s: interrupted, rollouts flushed and closed", name)}
}

// Stop ends the watch (the command finished).
func (t *terminator) Stop() {
	signal.Stop(t.sigs)
	close(t.stopCh)
	<-t.done
	t.mu.Lock()
	if t.deadline != nil {
		t.deadline.Stop()
	}
	t.mu.Unlock()
	t.cancel()
}
