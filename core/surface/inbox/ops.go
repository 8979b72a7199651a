package inbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/core/tools"
	"github.com/grovecli/grove/protocol"
)

// The seed's five operations. A model's tool call and a client's op
// (engine.Submit, the app-server) run the same code: run performs the
// operation and publishes its answer (subagent_created, …) on the caller's
// thread; the tool's result is that answer's JSON.

// caller is the thread an operation runs for and what it answers: a tool
// call of its model (turnID, callID) or a client's op (clientID).
type caller struct {
	thread         protocol.ThreadID
	turnID, callID string
	clientID       string
}

// HandlesOp implements engine.OpHandler: the seed's five ops.
func (s *Surface) HandlesOp(t protocol.OpType) bool { return protocol.IsInboxOp(t) }

// HandleOp implements engine.OpHandler.
func (s *Surface) HandleOp(ctx context.Context, thread protocol.ThreadID, op protocol.Op) (protocol.EventMsg, error) {
	return s.run(ctx, caller{thread: thread, clientID: op.ClientID}, op)
}

// run performs op for c and publishes the answer on c's thread.
func (s *Surface) run(ctx context.Context, c caller, op protocol.Op) (protocol.EventMsg, error) {
	var m protocol.EventMsg
	var err error
	switch op.Type {
	case protocol.OpCreateSubagent:
		m, err = s.create(ctx, c, op.Task)
	case protocol.OpListSubagents:
		m = s.list(c)
	case protocol.OpCheckInbox:
		m, err = s.check(c, op)
	case protocol.OpReplyToSubagent:
		m, err = s.reply(c, op)
	case protocol.OpEndSubagent:
		m, err = s.end(c, op)
	default:
		err = errors.New("not an inbox op")
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.Type, err)
	}
	s.e.Answer(c.thread, c.turnID, c.clientID, m)
	return m, nil
}

// childSpec is a sub-agent of this surface: the same surface (it may start
// its own sub-agents) and notify_parent.
func (s *Surface) childSpec(c caller, task string) engine.ChildSpec {
	return engine.ChildSpec{
		Caller: c.thread, CallID: c.callID, Prompt: task,
		Description: task, Note: engine.NormalizeNote(task),
		Instructions: childInstructions, Surface: Name,
		Tools: []tools.Tool{&tool{spec: spec(ToolNotify, "Post a message or a question to your parent's inbox and keep working. Your parent answers questions with a message to you.", notifyArgs{}), run: s.notify}},
	}
}

func (s *Surface) create(ctx context.Context, c caller, task string) (protocol.EventMsg, error) {
	if strings.TrimSpace(task) == "" {
		return nil, errors.New("task is empty; say what the sub-agent should do")
	}
	id, err := s.e.SpawnChild(ctx, s.childSpec(c, task))
	var lim *engine.MaxThreadsError
	switch {
	case errors.As(err, &lim):
		// This surface's way to a free slot: its own tools, not another surface's.
		return nil, fmt.Errorf("agent thread limit reached (max %d): %d sub-agents are running or pending (agents.max_threads); a slot frees when a sub-agent completes (check_inbox tells you), or end_subagent one you no longer need", lim.Max, lim.Active)
	case err != nil:
		return nil, err
	}
	if err := s.e.TrackSubagent(c.thread, id, task); err != nil {
		return nil, err
	}
	return protocol.SubagentCreatedMsg{SubagentID: id}, nil
}

func (s *Surface) list(c caller) protocol.EventMsg {
	subs := s.e.Subagents(c.thread)
	out := make([]protocol.SubagentInfo, 0, len(subs))
	for _, sa := range subs {
		out = append(out, protocol.SubagentInfo{
			ID: sa.ID, Task: sa.Task, State: sa.SeedState(),
			CreatedAt: sa.CreatedAt.UTC(), LastActivity: sa.LastActivity.UTC(), UnreadCount: sa.Unread,
		})
	}
	return protocol.SubagentsListResponseMsg{Subagents: out}
}

// check reads the inbox, most recent first; each notification's `read` is
// its state before this call (mark_as_read, default true, marks them).
func (s *Surface) check(c caller, op protocol.Op) (protocol.EventMsg, error) {
	mark := op.MarkAsRead == nil || *op.MarkAsRead
	notes, err := s.e.ReadInbox(c.thread, protocol.ThreadID(strings.TrimSpace(string(op.SubagentID))), mark)
	if err != nil {
		return nil, err
	}
	out := make([]protocol.SubagentNotification, 0, len(notes))
	for _, n := range notes {
		out = append(out, n.Seed())
	}
	return protocol.InboxResponseMsg{Notifications: out}, nil
}

func (s *Surface) reply(c caller, op protocol.Op) (protocol.EventMsg, error) {
	id := protocol.ThreadID(strings.TrimSpace(string(op.SubagentID)))
	rebind := s.childSpec(c, op.Message)
	if err := s.e.ReplyToSubagent(c.thread, id, op.Message, &rebind); err != nil {
		return nil, err
	}
	return protocol.SubagentReplySuccessMsg{SubagentID: id}, nil
}

func (s *Surface) end(c caller, op protocol.Op) (protocol.EventMsg, error) {
	id := protocol.ThreadID(strings.TrimSpace(string(op.SubagentID)))
	final, err := s.e.EndSubagent(c.thread, id)
	if err != nil {
		return nil, err
	}
	return protocol.SubagentEndedMsg{SubagentID: id, FinalState: final.SeedState()}, nil
}

// opTool is the tool that runs op name (the tool and the op share a name).
func (s *Surface) opTool(name, desc string, args any) tools.Tool {
	return &tool{spec: spec(name, desc, args), spawns: name == ToolCreate, run: func(ctx context.Context, env *tools.Env, raw json.RawMessage) tools.Result {
		op, err := opOf(name, raw)
		if err != nil {
			return tools.Errorf("%v", err)
		}
		m, err := s.run(ctx, caller{thread: env.ThreadID, turnID: env.TurnID, callID: env.CallID}, op)
		if err != nil {
			return tools.Errorf("%v", err)
		}
		summary, ids := describe(m)
		return jsonResult(m, false, summary, ids...)
	}}
}

// opOf reads a tool call's arguments as its op. Only the tool's own
// fields are read: the op's addressing (thread_id) is never the model's.
func opOf(name string, raw json.RawMessage) (protocol.Op, error) {
	op := protocol.Op{Type: protocol.OpType(name)}
	var err error
	switch name {
	case ToolCreate:
		var a createArgs
		err = decode(name, raw, &a)
		op.Task = a.Task
	case ToolList:
		err = decode(name, raw, &listArgs{})
	case ToolCheck:
		var a checkArgs
		err = decode(name, raw, &a)
		op.MarkAsRead, op.SubagentID = a.MarkAsRead, protocol.ThreadID(a.SubagentID)
	case ToolReply:
		var a replyArgs
		err = decode(name, raw, &a)
		op.SubagentID, op.Message = protocol.ThreadID(a.SubagentID), a.Message
	case ToolEnd:
		var a endArgs
		err = decode(name, raw, &a)
		op.SubagentID = protocol.ThreadID(a.SubagentID)
	}
	return op, err
}

// describe is an answer's one-line summary and the agents it names.
func describe(m protocol.EventMsg) (string, []protocol.ThreadID) {
	switch m := m.(type) {
	case protocol.SubagentCreatedMsg:
		return "started " + m.SubagentID.Short(), []protocol.ThreadID{m.SubagentID}
	case protocol.SubagentsListResponseMsg:
		return fmt.Sprintf("%d sub-agents", len(m.Subagents)), nil
	case protocol.InboxResponseMsg:
		unread := 0
		for _, n := range m.Notifications {
			if !n.Read {
				unread++
			}
		}
		return fmt.Sprintf("%d notifications, %d new", len(m.Notifications), unread), nil
	case protocol.SubagentReplySuccessMsg:
		return "replied to " + m.SubagentID.Short(), []protocol.ThreadID{m.SubagentID}
	case protocol.SubagentEndedMsg:
		return "ended " + m.SubagentID.Short(), []protocol.ThreadID{m.SubagentID}
	}
	return "", nil
}

func (s *Surface) notify(_ context.Context, env *tools.Env, raw json.RawMessage) tools.Result {
	var a notifyArgs
	if err := decode(ToolNotify, raw, &a); err != nil {
		return tools.Errorf("%v", err)
	}
	n, err := s.e.PostToParent(env.ThreadID, strings.TrimSpace(a.Type), a.Content)
	if err != nil {
		return tools.Errorf("notify_parent: %v", err)
	}
	return jsonResult(map[string]any{"delivered": true, "type": n.Kind}, false, "notified parent ("+n.Kind+")")
}
