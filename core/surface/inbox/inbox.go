// Package inbox is seed 001's delegation surface: a parent starts
// sub-agents with create_subagent and is never blocked by them; they post
// progress and questions to its inbox with notify_parent, and their final
// message (or failure) arrives there too. The parent reads with
// check_inbox, answers with reply_to_subagent and stops one with
// end_subagent. The inbox itself (storage in the rollout, waking an idle
// parent) is the engine's primitive; this package is the tools.
package inbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/tools"
	"github.com/grovecli/grove/core/tools/schema"
	"github.com/grovecli/grove/protocol"
)

// Name is the surface's name in agents.surface.
const Name = "inbox"

// Tool names of the surface.
const (
	ToolCreate = "create_subagent"
	ToolList   = "list_subagents"
	ToolCheck  = "check_inbox"
	ToolReply  = "reply_to_subagent"
	ToolEnd    = "end_subagent"
	// ToolNotify is the sub-agents' own tool.
	ToolNotify = "notify_parent"
)

// Surface is the inbox surface of one engine.
type Surface struct {
	e     *engine.Engine
	tools []tools.Tool
}

// New is the engine.SurfaceFactory of the inbox surface.
func New(e *engine.Engine) (engine.Surface, error) {
	s := &Surface{e: e}
	s.tools = []tools.Tool{
		&tool{spec: spec(ToolCreate, "Start a sub-agent on a task in the background and return its subagent_id at once; it never blocks. The sub-agent reports progress, questions and its result to your inbox.", createArgs{}), run: s.create},
		&tool{spec: spec(ToolList, "List your sub-agents with their state (active, completed, error), task, times and unread notification counts.", listArgs{}), run: s.list},
		&tool{spec: spec(ToolCheck, "Read the notifications your sub-agents sent (messages, questions, completions, errors), most recent first.", checkArgs{}), run: s.check},
		&tool{spec: spec(ToolReply, "Send a message to one of your sub-agents (an answer to its question, a clarification, more work). A finished sub-agent continues with it.", replyArgs{}), run: s.reply},
		&tool{spec: spec(ToolEnd, "Stop one of your sub-agents (and any agents it started) and return its final state.", endArgs{}), run: s.end},
	}
	return s, nil
}

// Name implements engine.Surface.
func (s *Surface) Name() string { return Name }

// Tools implements engine.Surface.
func (s *Surface) Tools() []tools.Tool { return s.tools }

// WakeNote is the message an idle parent gets for n new notifications.
func WakeNote(n int) string {
	return fmt.Sprintf("%d new notifications from sub-agents. Read them with check_inbox.", n)
}

// WakeNote implements engine.WakeNoter.
func (s *Surface) WakeNote(n int) string { return WakeNote(n) }

// Instructions is the prompt section on delegating through the inbox.
func (s *Surface) Instructions() string {
	return `# Working with sub-agents
- Hand self-contained parts of the work to sub-agents with create_subagent: give each a task with the goal, the files involved, the constraints and what to report back. It returns at once; keep working meanwhile.
- Sub-agents write to your inbox: progress messages, questions, and a completed (or error) notification when they finish. When news arrives while you are idle you get a turn with a short note; read it with check_inbox.
- Answer a question with reply_to_subagent (the sub-agent keeps working meanwhile). list_subagents shows who is still active; end_subagent stops one you no longer need.
- Your work is done when every sub-agent has finished and you have read and acted on its result.`
}

// childInstructions tell a sub-agent how to talk to its parent.
const childInstructions = `You are a sub-agent working on a task your parent agent gave you. Your parent is not blocked while you work.
- Use notify_parent with type "message" to report meaningful progress, and type "question" when you need a decision; keep working on what you can meanwhile. The answer arrives as a message from your parent.
- When the task is done, reply with your result: your final message is delivered to your parent as your completion summary.`

type createArgs struct {
	Task string `json:"task" required:"true" jsonschema:"The task: everything the sub-agent needs to know, and what to report back."`
}
type listArgs struct{}
type checkArgs struct {
	MarkAsRead *bool  `json:"mark_as_read" jsonschema:"Mark the returned notifications as read (default true)."`
	SubagentID string `json:"subagent_id" jsonschema:"Only this sub-agent's notifications."`
}
type replyArgs struct {
	SubagentID string `json:"subagent_id" required:"true" jsonschema:"The sub-agent to write to."`
	Message    string `json:"message" required:"true" jsonschema:"The message."`
}
type endArgs struct {
	SubagentID string `json:"subagent_id" required:"true" jsonschema:"The sub-agent to stop."`
}
type notifyArgs struct {
	Type    string `json:"type" required:"true" enum:"message,question" jsonschema:"message: progress or information; question: you need an answer from your parent."`
	Content string `json:"content" required:"true" jsonschema:"What to tell your parent."`
}

func spec(name, desc string, args any) model.ToolSpec {
	return model.ToolSpec{Name: name, Description: desc, Parameters: schema.MustObject(args)}
}

// tool is one of the surface's tools.
type tool struct {
	spec model.ToolSpec
	run  func(ctx context.Context, env *tools.Env, raw json.RawMessage) tools.Result
}

func (t *tool) Spec() model.ToolSpec { return t.spec }
func (t *tool) Run(ctx context.Context, env *tools.Env, raw json.RawMessage) tools.Result {
	return t.run(ctx, env, raw)
}

func decode(name string, raw json.RawMessage, v any) error {
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("%s: invalid arguments: %w", name, err)
	}
	return nil
}

// childSpec is a sub-agent of this surface: the same surface (it may start
// its own sub-agents) and notify_parent.
func (s *Surface) childSpec(env *tools.Env, task string) engine.ChildSpec {
	return engine.ChildSpec{
		Caller: env.ThreadID, CallID: env.CallID, Prompt: task,
		Description: task, Note: engine.NormalizeNote(task),
		Instructions: childInstructions, Surface: Name,
		Tools: []tools.Tool{&tool{spec: spec(ToolNotify, "Post a message or a question to your parent's inbox and keep working. Your parent answers questions with a message to you.", notifyArgs{}), run: s.notify}},
	}
}

func (s *Surface) create(ctx context.Context, env *tools.Env, raw json.RawMessage) tools.Result {
	var a createArgs
	if err := decode(ToolCreate, raw, &a); err != nil {
		return tools.Errorf("%v", err)
	}
	if strings.TrimSpace(a.Task) == "" {
		return tools.Errorf("create_subagent: task is empty; say what the sub-agent should do")
	}
	id, err := s.e.SpawnChild(ctx, s.childSpec(env, a.Task))
	var lim *engine.MaxThreadsError
	switch {
	case errors.As(err, &lim):
		// This surface's way to a free slot: its own tools, not another surface's.
		return tools.Errorf("create_subagent: agent thread limit reached (max %d): %d sub-agents are running or pending (agents.max_threads); a slot frees when a sub-agent completes (check_inbox tells you), or end_subagent one you no longer need", lim.Max, lim.Active)
	case err != nil:
		return tools.Errorf("create_subagent: %v", err)
	}
	if err := s.e.TrackSubagent(env.ThreadID, id, a.Task); err != nil {
		return tools.Errorf("create_subagent: %v", err)
	}
	return jsonResult(map[string]any{"subagent_id": id}, false, "started "+id.Short(), id)
}

// stateJSON renders a state as seed 001 has it: active, completed, or
// error with its message.
func stateJSON(sa protocol.InboxSubagent) any {
	if sa.State == protocol.SubagentError {
		return map[string]any{"error": map[string]string{"message": sa.ErrorMessage}}
	}
	return sa.State
}

func (s *Surface) list(_ context.Context, env *tools.Env, raw json.RawMessage) tools.Result {
	var a listArgs
	if err := decode(ToolList, raw, &a); err != nil {
		return tools.Errorf("%v", err)
	}
	subs := s.e.Subagents(env.ThreadID)
	out := make([]map[string]any, 0, len(subs))
	for _, sa := range subs {
		out = append(out, map[string]any{
			"id": sa.ID, "task": sa.Task, "state": stateJSON(sa.InboxSubagent),
			"created_at": sa.CreatedAt.UTC().Format(time.RFC3339Nano), "last_activity": sa.LastActivity.UTC().Format(time.RFC3339Nano),
			"unread_count": sa.Unread,
		})
	}
	return jsonResult(map[string]any{"subagents": out}, false, fmt.Sprintf("%d sub-agents", len(out)))
}

// notificationJSON renders a notification's body by its type.
func notificationJSON(n protocol.InboxNotification) map[string]any {
	key := "content"
	switch n.Kind {
	case protocol.NotifyCompleted:
		key = "summary"
	case protocol.NotifyError:
		key = "message"
	}
	return map[string]any{"type": n.Kind, key: n.Text}
}

func (s *Surface) check(_ context.Context, env *tools.Env, raw json.RawMessage) tools.Result {
	var a checkArgs
	if err := decode(ToolCheck, raw, &a); err != nil {
		return tools.Errorf("%v", err)
	}
	mark := a.MarkAsRead == nil || *a.MarkAsRead
	notes, err := s.e.ReadInbox(env.ThreadID, protocol.ThreadID(strings.TrimSpace(a.SubagentID)), mark)
	if err != nil {
		return tools.Errorf("check_inbox: %v", err)
	}
	out := make([]map[string]any, 0, len(notes))
	unread := 0
	for _, n := range notes {
		if !n.Read {
			unread++
		}
		out = append(out, map[string]any{
			"subagent_id": n.From, "timestamp": n.Timestamp.UTC().Format(time.RFC3339Nano),
			"notification": notificationJSON(n), "read": n.Read,
		})
	}
	return jsonResult(map[string]any{"notifications": out}, false, fmt.Sprintf("%d notifications, %d new", len(out), unread))
}

func (s *Surface) reply(_ context.Context, env *tools.Env, raw json.RawMessage) tools.Result {
	var a replyArgs
	if err := decode(ToolReply, raw, &a); err != nil {
		return tools.Errorf("%v", err)
	}
	id := protocol.ThreadID(strings.TrimSpace(a.SubagentID))
	rebind := s.childSpec(env, a.Message)
	if err := s.e.ReplyToSubagent(env.ThreadID, id, a.Message, &rebind); err != nil {
		return tools.Errorf("reply_to_subagent: %v", err)
	}
	return jsonResult(map[string]any{"subagent_id": id, "delivered": true}, false, "replied to "+id.Short(), id)
}

func (s *Surface) end(_ context.Context, env *tools.Env, raw json.RawMessage) tools.Result {
	var a endArgs
	if err := decode(ToolEnd, raw, &a); err != nil {
		return tools.Errorf("%v", err)
	}
	id := protocol.ThreadID(strings.TrimSpace(a.SubagentID))
	final, err := s.e.EndSubagent(env.ThreadID, id)
	if err != nil {
		return tools.Errorf("end_subagent: %v", err)
	}
	return jsonResult(map[string]any{"subagent_id": id, "final_state": stateJSON(final)}, false, "ended "+id.Short(), id)
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

func jsonResult(v any, isError bool, summary string, ids ...protocol.ThreadID) tools.Result {
	b, err := json.Marshal(v)
	if err != nil {
		return tools.Errorf("encode result: %v", err)
	}
	return tools.Result{Output: string(b), IsError: isError, Summary: summary, AgentIDs: ids}
}
