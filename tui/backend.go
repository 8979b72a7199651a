package tui

import (
	"github.com/grovecli/grove/core/app"
	"github.com/grovecli/grove/protocol"
)

// Backend is all the TUI knows of the engine: a live event stream, a way to
// submit ops, and snapshots to draw from when it (re)attaches.
type Backend interface {
	// Subscribe returns the live event stream (every status, approval and
	// final event is delivered; message deltas may be coalesced when the
	// reader lags). cancel stops it and closes the channel.
	Subscribe() (events <-chan protocol.Event, cancel func())
	// Submit sends an op (interrupt, approval decision, note, close,
	// compact, shutdown) to the engine. It never blocks for long.
	Submit(op protocol.Op) error
	// Turn sends a user message through the session core (app.Session.Turn):
	// it starts a turn on an idle thread and joins the running one on a
	// busy thread.
	Turn(t app.Turn) error
	// Configure changes a thread's model and effort, or the tree's
	// approval policy, through the session core (app.Session.Configure),
	// which checks them as every front end's settings.
	Configure(thread protocol.ThreadID, o protocol.TurnOverrides) error
	// Threads is a snapshot of every thread of the session (root first,
	// then in spawn order), each with its current status.
	Threads() []protocol.ThreadInfo
	// History is a thread's conversation so far (used when attaching to a
	// resumed session or a thread whose start the TUI did not see).
	History(id protocol.ThreadID) []protocol.Item
	// RootID is the session's root thread.
	RootID() protocol.ThreadID
	// Info describes the session for the header and status line.
	Info() SessionInfo
	// PendingApprovals lists approval requests not yet answered.
	PendingApprovals() []protocol.ApprovalRequest
}

// SessionInfo is static-ish session metadata for display.
type SessionInfo struct {
	Model          string
	Provider       string
	Demo           bool // offline demo model: say so in the header
	Cwd            string
	ApprovalPolicy protocol.ApprovalPolicy
	SandboxMode    protocol.SandboxMode
	Home           string // $GROVE_HOME, for the resume picker
	// ReadOnly says why the session is open read-only (another grove
	// writes it) and how to continue a copy; "" when it is writable.
	ReadOnly string
	// Warnings are the problems found while opening the session (a broken
	// SKILL.md, an unknown config key): notices in the transcript at start.
	Warnings []string
}
