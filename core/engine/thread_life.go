package engine

import (
	"context"

	"github.com/grovecli/grove/rollout"
)

// threadLife is a thread's lifecycle: its loop (context, wake-up, end),
// its rollout recorder, and whether it is closing or closed. It is guarded
// by the thread's mu, like turnState: a delivery refuses a closed thread in
// the same critical section that queues the input, and a turn's end leaves
// a closing thread's shutdown status alone.
type threadLife struct {
	ctx    context.Context // the loop's, cancelled when the thread closes
	cancel context.CancelFunc
	wake   chan struct{} // the loop's wake-up (signal), buffered 1
	done   chan struct{} // closed when the loop returns
	// closing: closeThreads cancelled the loop and waits for it; closed:
	// finalised (a closed agent is resumable, resumeThread reopens it).
	closing bool
	closed  bool
	// rec writes the rollout, nil while closed; rolloutPath stays.
	rec         *rollout.Recorder
	rolloutPath string
}

func newThreadLife() threadLife {
	return threadLife{wake: make(chan struct{}, 1), done: make(chan struct{})}
}

// gone reports a thread closed or being closed: it takes no more input.
func (l *threadLife) gone() bool { return l.closed || l.closing }

// start gives the loop a context under parent and a fresh end channel.
func (l *threadLife) start(parent context.Context) {
	l.ctx, l.cancel = context.WithCancel(parent)
	l.done = make(chan struct{})
}

// beginClose marks the thread closing and returns how to stop its loop
// (cancel is nil when it never ran); ok is false when it is already gone.
func (l *threadLife) beginClose() (cancel context.CancelFunc, done <-chan struct{}, ok bool) {
	if l.gone() {
		return nil, nil, false
	}
	l.closing = true
	return l.cancel, l.done, true
}

// finishClose marks the thread closed and hands over its recorder for the
// last line and the close.
func (l *threadLife) finishClose() *rollout.Recorder {
	rec := l.rec
	l.rec, l.closed, l.closing = nil, true, false
	return rec
}

// reopen is resume's: the thread records to rec again.
func (l *threadLife) reopen(rec *rollout.Recorder) {
	l.rec, l.closed = rec, false
}
