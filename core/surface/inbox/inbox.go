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
	"fmt"

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
	e     engine.Ops
	tools []tools.Tool
}

// New is the engine.SurfaceFactory of the inbox surface.
func New(e engine.Ops) (engine.Surface, error) {
	s := &Surface{e: e}
	s.tools = []tools.Tool{
		s.opTool(ToolCreate, "Start a sub-agent on a task in the background and return its subagent_id at once; it never blocks. The sub-agent reports progress, questions and its result to your inbox.", createArgs{}),
		s.opTool(ToolList, "List your sub-agents with their state (active, completed, error), task, times and unread notification counts.", listArgs{}),
		s.opTool(ToolCheck, "Read the notifications your sub-agents sent (messages, questions, completions, errors), most recent first.", checkArgs{}),
		s.opTool(ToolReply, "Send a message to one of your sub-agents (an answer to its question, a clarification, more work). A finished sub-agent continues with it.", replyArgs{}),
		s.opTool(ToolEnd, "Stop one of your sub-agents (and any agents it started) and return its final state.", endArgs{}),
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
	spec   model.ToolSpec
	run    func(ctx context.Context, env *tools.Env, raw json.RawMessage) tools.Result
	spawns bool // create_subagent: each call starts a sub-agent
}

func (t *tool) Spec() model.ToolSpec { return t.spec }

// SpawnsAgent implements tools.Spawner: create_subagent's max_threads
// slots are settled in call order, as every surface's spawns are.
func (t *tool) SpawnsAgent(json.RawMessage) bool { return t.spawns }

// Kind implements tools.Kinded.
func (t *tool) Kind() protocol.ToolKind { return protocol.ToolKindCollab }
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

func jsonResult(v any, isError bool, summary string, ids ...protocol.ThreadID) tools.Result {
	b, err := json.Marshal(v)
	if err != nil {
		return tools.Errorf("encode result: %v", err)
	}
	return tools.Result{Output: string(b), IsError: isError, Summary: summary, AgentIDs: ids}
}
