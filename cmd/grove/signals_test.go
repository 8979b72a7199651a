package main

import (
	"context"
	"syscall"
	"testing"
	"time"
)

// TestTerminatorSecondSignalOrDeadlineForcesExit: the first SIGTERM ends
// the run's context with status 143; a second signal (here SIGINT, Ctrl+C)
// exits at once with that status, and so does the deadline on its own.
func TestTerminatorSecondSignalOrDeadlineForcesExit(t *testing.T) {
	exits := make(chan int, 2)
	term := watchTerminationWith(context.Background(), func(code int) { exits <- code }, time.Hour)
	defer term.Stop()
	if terminatorFrom(term.ctx) != term {
		t.Fatal("terminator not reachable from its context")
	}
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-term.ctx.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("SIGTERM did not end the run's context")
	}
	if term.Code() != 143 || term.Err() == nil {
		t.Fatalf("code %d err %v", term.Code(), term.Err())
	}
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-exits:
		if code != 143 {
			t.Fatalf("forced exit %d", code)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a second signal did not force the exit")
	}

	// The deadline alone forces the exit too.
	term2 := watchTerminationWith(context.Background(), func(code int) { exits <- code }, time.Millisecond)
	defer term2.Stop()
	term2.BeginShutdown(130)
	select {
	case code := <-exits:
		if code != 130 {
			t.Fatalf("deadline exit %d", code)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the deadline did not force the exit")
	}
}
