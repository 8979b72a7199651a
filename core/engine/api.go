package engine

import (
	"context"
	"time"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/tools"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/templates"
)

// The engine has two kinds of clients, and each sees its own part of
// *Engine: a front end (the TUI, `grove exec`, the app-server, ACP, through
// the session core) drives a session — starts, resumes and forks it, sends
// ops, reads snapshots and events — while a surface (core/surface/…) builds
// delegation tools that act for the calling thread inside the tree. A
// surface gets Ops from its SurfaceFactory and never the session's
// controls; a front end never acts as a thread.

// FrontEnd is what a front end asks of the engine.
type FrontEnd interface {
	SessionControl
	Snapshots

	// Subscribe returns the live event stream; cancel stops it.
	Subscribe() (<-chan protocol.Event, func())
	// Submit sends an op (user turn, interrupt, approval, note, close,
	// settings) to the engine.
	Submit(op protocol.Op) error
	// SubmitText is Submit of a user turn carrying text.
	SubmitText(id protocol.ThreadID, text string) error
	// SurfaceOp runs an op a surface answers (the inbox's), not the engine.
	SurfaceOp(op protocol.Op) (protocol.EventMsg, error)
	// KillSession ends a background terminal session by its id.
	KillSession(id int) error
	// SetThreadName names a thread (the app-server's thread/name/set) and
	// returns the stored name.
	SetThreadName(id protocol.ThreadID, name string) (string, error)
}

// SessionControl is a front end's control of the session's life.
type SessionControl interface {
	StartRoot() (protocol.ThreadID, error)
	ResumeSession(id string) (protocol.ThreadID, error)
	ForkSession(id string) (protocol.ThreadID, error)
	ViewSession(id string) (protocol.ThreadID, error)
	// Settled reports that no agent works and nothing waits to be said.
	Settled() bool
	Shutdown(ctx context.Context) error
}

// Snapshots are what a front end draws from when it (re)attaches.
type Snapshots interface {
	RootID() protocol.ThreadID
	Threads() []protocol.ThreadInfo
	Info(id protocol.ThreadID) (protocol.ThreadInfo, bool)
	History(id protocol.ThreadID) []protocol.Item
	Stats(id protocol.ThreadID) ThreadStats
	Report(id protocol.ThreadID) (RunReport, bool)
	PendingApprovals() []protocol.ApprovalRequest
	PendingUserInputs() []protocol.UserInputRequest
	Sessions(owner protocol.ThreadID) []tools.SessionInfo
	Unrecorded() []string
	Options() Options
	ApprovalPolicy() protocol.ApprovalPolicy
	ContextLimits(ctx context.Context, modelName string) (window, compactAt int64)
	OfferedTools(modelName string) (tools.Family, []model.ToolSpec, error)
	SurfaceNames() []string
	// ProjectDocPaths are the instruction files a thread was given.
	ProjectDocPaths(id protocol.ThreadID) []string
}

// Ops is what a surface asks of the engine. Every call that names a caller
// acts for that thread and resolves ids only in its own session tree.
type Ops interface {
	AgentOps
	ChildOps
	InboxOps
}

// AgentOps are spawn_agent's family of tools (the collab surface): the
// model picks the template, the engine the rest.
type AgentOps interface {
	Spawn(ctx context.Context, caller protocol.ThreadID, r protocol.SpawnRequest) (protocol.ThreadInfo, error)
	Send(caller, id protocol.ThreadID, message string, items []protocol.InputItem, interrupt bool) error
	WaitAgents(ctx context.Context, caller protocol.ThreadID, ids []protocol.ThreadID, timeoutMS *int64) (map[protocol.ThreadID]protocol.AgentStatus, bool, error)
	ResumeAgent(caller, id protocol.ThreadID) (protocol.AgentStatus, error)
	CloseAgent(caller, id protocol.ThreadID) (protocol.AgentStatus, error)
	SetNote(caller, id protocol.ThreadID, note string) (string, error)
	ListActive(caller protocol.ThreadID, r protocol.ListActiveRequest) ([]protocol.ActiveAgent, error)
	Info(id protocol.ThreadID) (protocol.ThreadInfo, bool)
	History(id protocol.ThreadID) []protocol.Item
	Templates() *templates.Catalog
}

// ChildOps run a surface's own children (Task, sessions, the inbox): the
// surface fixes their instructions, tools and limits (ChildSpec).
type ChildOps interface {
	SpawnChild(ctx context.Context, spec ChildSpec) (protocol.ThreadID, error)
	ContinueChild(caller, id protocol.ThreadID, prompt string, rebind *ChildSpec) error
	CheckContinue(caller, id protocol.ThreadID) error
	Rebind(id protocol.ThreadID, spec ChildSpec) error
	WaitFinal(ctx context.Context, id protocol.ThreadID, timeout time.Duration) (protocol.AgentStatus, bool, error)
	Report(id protocol.ThreadID) (RunReport, bool)
	Interrupt(caller, id protocol.ThreadID) error
	IsChildOf(caller, id protocol.ThreadID) bool
	Announce(id, child protocol.ThreadID, message string) error
}

// InboxOps are the parent–child mailbox of the inbox surface.
type InboxOps interface {
	TrackSubagent(parent, child protocol.ThreadID, task string) error
	PostToParent(child protocol.ThreadID, kind, text string) (protocol.InboxNotification, error)
	ReadInbox(parent, from protocol.ThreadID, markRead bool) ([]protocol.InboxNotification, error)
	Subagents(parent protocol.ThreadID) []SubagentInfo
	UnreadCount(id protocol.ThreadID) int
	ReplyToSubagent(parent, child protocol.ThreadID, message string, rebind *ChildSpec) error
	EndSubagent(parent, child protocol.ThreadID) (protocol.InboxSubagent, error)
	// Answer publishes a surface's answer to a front end's SurfaceOp.
	Answer(thread protocol.ThreadID, turnID, clientID string, m protocol.EventMsg)
}

var (
	_ FrontEnd = (*Engine)(nil)
	_ Ops      = (*Engine)(nil)
)
