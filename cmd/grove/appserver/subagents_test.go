package appserver

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/surface"
	"github.com/grovecli/grove/core/surface/inbox"
	"github.com/grovecli/grove/core/surface/task"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/templates"
)

// inboxScript: the root starts sub-agent "alpha" on its first request and
// then ends its turn; a sub-agent posts a question, and answers "done"
// once it is told "stop".
func inboxScript(_ context.Context, req model.Request) (model.Response, error) {
	last := req.Items[len(req.Items)-1]
	if strings.Contains(req.Instructions, "You are a sub-agent working on a task") {
		switch {
		case strings.Contains(last.Content, "stop"):
			return model.Response{Text: "done"}, nil
		case last.Type == protocol.ItemFunctionCallOutput:
			return model.Response{Text: "asked"}, nil
		}
		return model.Response{ToolCalls: []model.ToolCallRequest{{CallID: "q1", Name: inbox.ToolNotify, Arguments: `{"type":"question","content":"which file?"}`}}}, nil
	}
	if len(req.Items) == 1 {
		return model.Response{ToolCalls: []model.ToolCallRequest{{CallID: "c1", Name: inbox.ToolCreate, Arguments: `{"task":"alpha: look around"}`}}}, nil
	}
	return model.Response{Text: "waiting"}, nil
}

func inboxFixture(t *testing.T, surfaceName string) *fixture {
	f := newFixture(t, inboxScript)
	f.build = func(ctx context.Context, cfg ThreadConfig) (*engine.Engine, error) {
		return engine.New(ctx, engine.Options{
			Home: f.home, Client: model.NewScripted("scripted", f.script), Provider: "scripted",
			Model: "scripted-model", Cwd: f.cwd, Sandbox: protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite},
			ApprovalPolicy: protocol.ApprovalNever, Headless: true,
			Surfaces:      []engine.SurfaceFactory{surface.CollabFactory, inbox.New},
			SelectSurface: surface.Selector(surfaceName),
		})
	}
	return f
}

// TestAppServerInboxOpsAndEvents: seed 001's ops are requests on a thread
// answered with the op's EventMsg, and every such event — the model's
// create_subagent call's and the client's — is a codex/event/<type>
// notification {id, msg, conversationId}. Every line is validated against
// testdata/grove-extensions.json.
func TestAppServerInboxOpsAndEvents(t *testing.T) {
	f := inboxFixture(t, inbox.Name)
	c := f.start(t)
	defer c.close()
	c.initialize()
	root := str(c.result("thread/start", map[string]any{}), "thread", "id")
	c.result("turn/start", turnInput(root, "delegate"))
	// The model's create_subagent: a notification with the turn's id.
	created := c.notification("codex/event/subagent_created", nil)
	kid := str(created, "msg", "subagent_id")
	if kid == "" || created["conversationId"] != root || str(created, "id") == "" {
		t.Fatalf("subagent_created notification %v", created)
	}
	// The sub-agent's question arrives; the client reads it without marking it read.
	for {
		r := c.result("checkInbox", map[string]any{"threadId": root, "mark_as_read": false})
		notes, _ := r["notifications"].([]any)
		if r["type"] != "inbox_response" {
			t.Fatalf("checkInbox answered %v", r)
		}
		var question map[string]any // most recent first: its completion may be ahead of it
		for _, n := range notes {
			if n := n.(map[string]any); str(n, "notification", "type") == "question" {
				question = n
			}
		}
		if question != nil {
			if str(question, "notification", "content") != "which file?" || question["subagent_id"] != kid || question["read"] != false {
				t.Fatalf("notification %v", question)
			}
			break
		}
		// Not there yet: wait for the inbox to change, then ask again.
		c.next(func(m map[string]any) bool { return m["method"] == "item/completed" }, "the next item")
	}
	id := c.request("replyToSubagent", map[string]any{"threadId": root, "subagent_id": kid, "message": "stop"})
	reply := c.next(func(m map[string]any) bool { return fmt.Sprint(m["id"]) == id && m["method"] == nil }, "replyToSubagent response")
	if str(reply, "result", "type") != "subagent_reply_success" || str(reply, "result", "subagent_id") != kid {
		t.Fatalf("replyToSubagent: %v", reply)
	}
	note := c.notification("codex/event/subagent_reply_success", nil)
	if note["id"] != id || str(note, "msg", "subagent_id") != kid {
		t.Fatalf("subagent_reply_success notification %v (request id %s)", note, id)
	}
	list := c.result("listSubagents", map[string]any{"threadId": root})
	subs, _ := list["subagents"].([]any)
	if list["type"] != "subagents_list_response" || len(subs) != 1 || subs[0].(map[string]any)["task"] != "alpha: look around" {
		t.Fatalf("listSubagents %v", list)
	}
	c.notification("codex/event/subagents_list_response", nil)
	end := c.result("endSubagent", map[string]any{"threadId": root, "subagent_id": kid})
	if end["type"] != "subagent_ended" || end["subagent_id"] != kid || end["final_state"] == nil {
		t.Fatalf("endSubagent %v", end)
	}
	c.notification("codex/event/subagent_ended", nil)
	// A client-started sub-agent.
	mine := c.result("createSubagent", map[string]any{"threadId": root, "task": "beta: from the client"})
	if mine["type"] != "subagent_created" || mine["subagent_id"] == "" || mine["subagent_id"] == kid {
		t.Fatalf("createSubagent %v", mine)
	}
	c.notification("codex/event/subagent_created", func(p map[string]any) bool { return str(p, "msg", "subagent_id") == mine["subagent_id"] })
	// Errors name the field and the cause.
	for _, tc := range []struct {
		method string
		params map[string]any
		want   string
	}{
		{"endSubagent", map[string]any{"threadId": root, "subagent_id": "nope"}, "end_subagent: no sub-agent nope of this agent"},
		{"createSubagent", map[string]any{"threadId": root, "task": " "}, "create_subagent: task is empty"},
		{"checkInbox", map[string]any{}, "threadId is required"},
		{"listSubagents", map[string]any{"threadId": "ghost"}, "thread ghost is not loaded"},
		{"checkInbox", map[string]any{"threadId": root, "mark_as_read": "yes"}, "field mark_as_read"},
	} {
		m := c.call(tc.method, tc.params)
		if code(m) != protocol.RPCInvalidParams || !strings.Contains(str(m, "error", "message"), tc.want) {
			t.Errorf("%s %v: %v, want -32602 with %q", tc.method, tc.params, m, tc.want)
		}
	}
}

// TestAppServerInboxOpsRefusedOnACollabThread: a thread on another surface
// is told which surface the ops need.
func TestAppServerInboxOpsRefusedOnACollabThread(t *testing.T) {
	f := inboxFixture(t, surface.Collab)
	c := f.start(t)
	defer c.close()
	c.initialize()
	root := str(c.result("thread/start", map[string]any{}), "thread", "id")
	m := c.call("createSubagent", map[string]any{"threadId": root, "task": "x"})
	if code(m) != protocol.RPCInvalidParams || !strings.Contains(str(m, "error", "message"), `uses the "collab" tool surface`) {
		t.Fatalf("createSubagent on a collab thread: %v", m)
	}
}

// taskScript: the root hands three Explore agents their work; alpha
// streams reasoning, lists a directory and completes, beta never calls
// complete_task (grace step), gamma's model fails.
func taskScript(_ context.Context, req model.Request) (model.Response, error) {
	last := req.Items[len(req.Items)-1]
	first := ""
	for _, it := range req.Items {
		if it.Type == protocol.ItemMessage && it.Role == protocol.RoleUser {
			first = it.Content
			break
		}
	}
	switch {
	case strings.Contains(first, "alpha:"):
		if last.Type == protocol.ItemFunctionCallOutput {
			return model.Response{ToolCalls: []model.ToolCallRequest{{CallID: "a2", Name: "complete_task", Arguments: `{"result":"two files"}`}}}, nil
		}
		return model.Response{Reasoning: "layout first", ToolCalls: []model.ToolCallRequest{{CallID: "a1", Name: "list_dir", Arguments: `{"path":"."}`}}}, nil
	case strings.Contains(first, "beta:"):
		return model.Response{Text: "no tool from me"}, nil
	case strings.Contains(first, "gamma:"):
		return model.Response{}, fmt.Errorf("gamma's model is down")
	case last.Type == protocol.ItemFunctionCallOutput:
		return model.Response{Text: "explored"}, nil
	}
	var calls []model.ToolCallRequest
	for i, name := range []string{"alpha", "beta", "gamma"} {
		calls = append(calls, model.ToolCallRequest{CallID: fmt.Sprintf("t%d", i), Name: "Task",
			Arguments: fmt.Sprintf(`{"subagent_type":"Explore","prompt":"%s: work","description":%q}`, name, name)})
	}
	return model.Response{ToolCalls: calls}, nil
}

// TestAppServerSubagentActivityNotifications: seed 004's SubagentActivity
// events of a Task sub-agent reach the client as codex/event/subagent_activity
// notifications on the parent's thread, every event type among them.
func TestAppServerSubagentActivityNotifications(t *testing.T) {
	f := newFixture(t, taskScript)
	f.build = func(ctx context.Context, cfg ThreadConfig) (*engine.Engine, error) {
		return engine.New(ctx, engine.Options{
			Home: f.home, Client: model.NewScripted("scripted", f.script), Provider: "scripted",
			Model: "scripted-model", Cwd: f.cwd, Sandbox: protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite},
			ApprovalPolicy: protocol.ApprovalNever, Headless: true,
			Templates:     templates.Load(templates.Dirs{Cwd: f.cwd, GroveHome: f.home}, templates.Options{}),
			Surfaces:      []engine.SurfaceFactory{surface.CollabFactory, task.Factory(task.Options{})},
			SelectSurface: surface.Selector(surface.Task),
		})
	}
	c := f.start(t)
	defer c.close()
	c.initialize()
	root := str(c.result("thread/start", map[string]any{}), "thread", "id")
	c.result("turn/start", turnInput(root, "explore"))
	want := map[string]bool{}
	for _, k := range []protocol.SubagentEventType{
		protocol.ActivityStarted, protocol.ActivityCompleted, protocol.ActivityError,
		protocol.ActivityTurnStart, protocol.ActivityTurnComplete, protocol.ActivityToolCallStart, protocol.ActivityToolCallEnd,
		protocol.ActivityThoughtChunk, protocol.ActivityGracePeriodStart, protocol.ActivityGracePeriodEnd,
	} {
		want[string(k)] = true
	}
	for len(want) > 0 {
		p := c.notification("codex/event/subagent_activity", nil)
		if p["conversationId"] != root || str(p, "msg", "type") != "subagent_activity" || str(p, "msg", "agent_id") == "" {
			t.Fatalf("activity notification %v", p)
		}
		delete(want, str(p, "msg", "event_type"))
	}
	c.notification("turn/completed", func(p map[string]any) bool { return p["threadId"] == root })
}
