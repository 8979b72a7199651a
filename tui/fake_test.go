package tui

import (
	"hash/fnv"
	"strings"
	"sync"
	"time"

	"github.com/grovecli/grove/core/app"
	"github.com/grovecli/grove/protocol"
)

// fakeBackend replays scripted events and records ops.
type fakeBackend struct {
	mu      sync.Mutex
	ch      chan protocol.Event
	ops     []protocol.Op
	threads []protocol.ThreadInfo
	info    SessionInfo
	history map[protocol.ThreadID][]protocol.Item
}

func newFake(threads ...protocol.ThreadInfo) *fakeBackend {
	return &fakeBackend{ch: make(chan protocol.Event, 1024), threads: threads, info: SessionInfo{Model: "gpt-test", Provider: "mock", Cwd: "/work/project", Home: "/tmp/none"}}
}

func (f *fakeBackend) Subscribe() (<-chan protocol.Event, func()) {
	var once sync.Once
	return f.ch, func() { once.Do(func() { close(f.ch) }) }
}
func (f *fakeBackend) Submit(op protocol.Op) error {
	f.mu.Lock()
	f.ops = append(f.ops, op)
	f.mu.Unlock()
	return nil
}

// Turn and Configure are the session core's own checks and ops, recorded
// by Submit: the TUI's tests see what a real session would send.
func (f *fakeBackend) Turn(t app.Turn) error { return app.SubmitTurn(fakeTarget{f}, f.RootID(), t) }
func (f *fakeBackend) Configure(thread protocol.ThreadID, o protocol.TurnOverrides) error {
	return app.SubmitSettings(fakeTarget{f}, f.RootID(), thread, o)
}

// fakeTarget is the fake as the engine the session core submits to.
type fakeTarget struct{ *fakeBackend }

func (f fakeTarget) Info(id protocol.ThreadID) (protocol.ThreadInfo, bool) {
	for _, t := range f.threads {
		if t.ID == id {
			return t, true
		}
	}
	return protocol.ThreadInfo{}, false
}

func (f *fakeBackend) Threads() []protocol.ThreadInfo               { return f.threads }
func (f *fakeBackend) History(id protocol.ThreadID) []protocol.Item { return f.history[id] }
func (f *fakeBackend) RootID() protocol.ThreadID                    { return f.threads[0].ID }
func (f *fakeBackend) Info() SessionInfo                            { return f.info }
func (f *fakeBackend) PendingApprovals() []protocol.ApprovalRequest { return nil }
func (f *fakeBackend) Ops() []protocol.Op {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]protocol.Op(nil), f.ops...)
}

var t0 = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)

const (
	rootID     protocol.ThreadID = "00000000-0000-7000-8000-0000000root1"
	explorerID protocol.ThreadID = "00000000-0000-7000-8000-00000explor1"
	workerID   protocol.ThreadID = "00000000-0000-7000-8000-000000worker"
	reviewerID protocol.ThreadID = "00000000-0000-7000-8000-0000reviewer"
	closedID   protocol.ThreadID = "00000000-0000-7000-8000-000000closed"
)

func rootInfo() protocol.ThreadInfo {
	return protocol.ThreadInfo{ID: rootID, Source: protocol.SourceRoot, Model: "gpt-test", Cwd: "/work/project", StartedAt: t0, Status: protocol.Completed("", false)}
}

func child(id protocol.ThreadID, typ, name, note string, depth int, parent protocol.ThreadID) protocol.ThreadInfo {
	return protocol.ThreadInfo{ID: id, ParentID: parent, Depth: depth, Source: protocol.SourceSpawned, AgentType: typ, AgentName: name, Nickname: testNickname(id, name), Model: "gpt-test", Note: note, Cwd: "/work/project", StartedAt: t0.Add(2 * time.Second), Status: protocol.PendingInit()}
}

// testNickname stands in for the engine's nickname (core/engine/nickname.go):
// the persona when given, else a name the id picks (a test that needs
// many distinct names sets them).
func testNickname(id protocol.ThreadID, persona string) string {
	if persona != "" {
		return persona
	}
	names := strings.Fields("Ada Boole Curie Dirac Euler Fermat Gauss Hopper Ising Joule Kepler Lovelace Maxwell Noether Ohm Pascal")
	h := fnv.New32a()
	h.Write([]byte(id))
	return names[h.Sum32()%uint32(len(names))]
}

func ev(typ protocol.EventType, id protocol.ThreadID, at time.Duration) protocol.Event {
	return protocol.Event{Type: typ, ThreadID: id, Timestamp: t0.Add(at)}
}

func started(info protocol.ThreadInfo, at time.Duration) protocol.Event {
	e := ev(protocol.EventThreadStarted, info.ID, at)
	e.Thread = &info
	return e
}

func status(id protocol.ThreadID, st protocol.AgentStatus, at time.Duration) protocol.Event {
	e := ev(protocol.EventStatusChanged, id, at)
	e.Status = &st
	return e
}

func toolBegin(id protocol.ThreadID, call, name, args string) protocol.Event {
	e := ev(protocol.EventToolCallBegin, id, 3*time.Second)
	e.Tool = &protocol.ToolCall{CallID: call, Name: name, Arguments: args}
	return e
}

func toolEnd(id protocol.ThreadID, call, name, args, out string, targets ...protocol.ThreadID) protocol.Event {
	e := ev(protocol.EventToolCallEnd, id, 4*time.Second)
	code := 0
	e.Tool = &protocol.ToolCall{CallID: call, Name: name, Arguments: args, Output: out, AgentIDs: targets, DurationMS: 1200}
	if name == "exec_command" {
		e.Tool.ExitCode = &code
	}
	return e
}

func message(id protocol.ThreadID, text string) protocol.Event {
	e := ev(protocol.EventMessage, id, 5*time.Second)
	e.Message = text
	return e
}

func userMsg(id protocol.ThreadID, text string) protocol.Event {
	e := ev(protocol.EventUserMessage, id, time.Second)
	e.Message = text
	return e
}

// treeScenario is a session with agents in every state and status cards.
func treeScenario() []protocol.Event {
	return []protocol.Event{
		status(rootID, protocol.Running(), time.Second),
		userMsg(rootID, "Fix the flaky date parser and add tests"),
		message(rootID, "I'll split this: an **explorer** finds the parser, a **worker** fixes it."),
		toolBegin(rootID, "s1", "spawn_agent", `{"agent_type":"explorer","message":"find the parser"}`),
		started(child(explorerID, "explorer", "", "find the date parser", 1, rootID), 2*time.Second),
		toolEnd(rootID, "s1", "spawn_agent", `{"agent_type":"explorer"}`, `{"agent_id":"`+string(explorerID)+`"}`, explorerID),
		toolBegin(rootID, "s2", "spawn_agent", `{"agent_type":"worker","agent_name":"careful","message":"fix it"}`),
		started(child(workerID, "worker", "careful", "fix leap-year parsing", 1, rootID), 2*time.Second),
		toolEnd(rootID, "s2", "spawn_agent", `{"agent_type":"worker"}`, `{"agent_id":"`+string(workerID)+`"}`, workerID),
		started(child(reviewerID, "reviewer", "", "", 2, workerID), 3*time.Second),
		started(child(closedID, "explorer", "quick", "old lookup", 1, rootID), 2*time.Second),
		status(explorerID, protocol.Running(), 3*time.Second),
		status(explorerID, protocol.Completed("Parser is in pkg/when/parse.go:42; it ignores Feb 29.", true), 20*time.Second),
		status(workerID, protocol.Running(), 3*time.Second),
		status(reviewerID, protocol.Errored("model provider mock: HTTP 500"), 9*time.Second),
		status(closedID, protocol.Shutdown(), 6*time.Second),
		toolBegin(rootID, "w1", "wait", `{"ids":["`+string(explorerID)+`","`+string(workerID)+`"]}`),
		toolEnd(rootID, "w1", "wait", `{}`, `{"status":{}}`, explorerID, workerID),
		toolBegin(rootID, "x1", "exec_command", `{"cmd":"go test ./pkg/when/..."}`),
		toolEnd(rootID, "x1", "exec_command", `{"cmd":"go test ./pkg/when/..."}`, "Exit code: 0\nWall time: 1.20 seconds\nOutput:\nok  \tpkg/when\t0.012s"),
	}
}

// nick is the name the TUI shows for thread id (nick.go).
func nick(m Model, id protocol.ThreadID) string { return m.sess.threads[id].name() }
