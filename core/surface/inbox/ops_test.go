package inbox

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/surface"
	"github.com/grovecli/grove/core/surface/surfacetest"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/templates"
)

// nextOf waits for the next event of type typ on events (a hang guard,
// not a timing assert).
func nextOf(t *testing.T, events <-chan protocol.Event, typ protocol.EventType) protocol.Event {
	t.Helper()
	guard := time.After(30 * time.Second)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatalf("event stream closed before %s", typ)
			}
			if ev.Type == typ {
				return ev
			}
		case <-guard:
			t.Fatalf("no %s event", typ)
		}
	}
}

// The model's inbox tools publish seed 001's EventMsg variants on the
// parent's thread, and each tool's result is exactly its variant's JSON.
func TestToolsPublishTheSeedsEvents(t *testing.T) {
	c := &surfacetest.Scripted{Who: whoOf}
	c.Reply = func(who string, req model.Request) model.Response {
		if who != "root" {
			return say("FINAL: fence painted")
		}
		it := last(req)
		switch {
		case len(req.Items) == 1:
			return call("c1", ToolCreate, `{"task":"alpha: paint the fence"}`)
		case it.CallID == "c1":
			return say("started")
		case strings.Contains(it.Content, "new notifications from sub-agents"):
			return call("k1", ToolCheck, `{}`)
		case it.CallID == "k1":
			return call("l1", ToolList, `{}`)
		case it.CallID == "l1":
			id := jsonOf(t, it.Output)["subagents"].([]any)[0].(map[string]any)["id"].(string)
			return model.Response{ToolCalls: []model.ToolCallRequest{
				{CallID: "r1", Name: ToolReply, Arguments: fmt.Sprintf(`{"subagent_id":%q,"message":"thanks"}`, id)},
			}}
		case it.CallID == "r1":
			var a struct {
				ID string `json:"subagent_id"`
			}
			_ = json.Unmarshal([]byte(it.Output), &a)
			return call("x1", ToolEnd, fmt.Sprintf(`{"subagent_id":%q}`, a.ID))
		}
		return say("done")
	}
	e, rootID := start(t, c, setup{})
	events, cancel := e.Subscribe()
	defer cancel()
	if err := e.SubmitText(rootID, "paint"); err != nil {
		t.Fatal(err)
	}
	want := []struct {
		typ    protocol.EventType
		callID string
	}{
		{protocol.EventSubagentCreated, "c1"}, {protocol.EventInboxResponse, "k1"}, {protocol.EventSubagentsListResponse, "l1"},
		{protocol.EventSubagentReplySuccess, "r1"}, {protocol.EventSubagentEnded, "x1"},
	}
	got := make([]protocol.Event, len(want))
	for i, w := range want {
		got[i] = nextOf(t, events, w.typ)
	}
	// The tool results reach the model after the events: compare once settled.
	waitSettled(t, e, rootID, events)
	for i, w := range want {
		ev := got[i]
		if ev.ThreadID != rootID || ev.TurnID == "" || len(ev.ClientIDs) != 0 {
			t.Errorf("%s: thread %s turn %q client_ids %v; want the root's turn, no client ids", w.typ, ev.ThreadID, ev.TurnID, ev.ClientIDs)
		}
		m, err := ev.Msg()
		if err != nil {
			t.Fatalf("%s: %v", w.typ, err)
		}
		b, _ := json.Marshal(m)
		if out := mustOutput(t, c, w.callID); out != string(b) {
			t.Errorf("%s: tool result %s, event variant %s", w.callID, out, b)
		}
		switch m := m.(type) {
		case protocol.InboxResponseMsg:
			if len(m.Notifications) != 1 || m.Notifications[0].Notification != (protocol.NotificationType{Kind: protocol.NotifyCompleted, Text: "FINAL: fence painted"}) || m.Notifications[0].Read {
				t.Errorf("inbox_response: %+v", m)
			}
		case protocol.SubagentsListResponseMsg:
			if len(m.Subagents) != 1 || m.Subagents[0].State.Kind != protocol.SubagentCompleted || m.Subagents[0].Task != "alpha: paint the fence" {
				t.Errorf("subagents_list_response: %+v", m)
			}
		}
	}
}

// A client's ops run the same operations: the answer is returned and
// published on the thread with the op's client id; errors name the op.
func TestClientOpsRunTheSameOperations(t *testing.T) {
	release := make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	c := &surfacetest.Scripted{Who: whoOf, Reply: func(who string, req model.Request) model.Response {
		if who == "beta:" && strings.Contains(last(req).Content, "stop waiting") {
			return say("FINAL: stopped")
		}
		if who == "beta:" {
			return call("n1", ToolNotify, `{"type":"question","content":"which file?"}`)
		}
		<-release
		return say("root")
	}}
	e, rootID := start(t, c, setup{})
	t.Cleanup(free)
	events, cancel := e.Subscribe()
	defer cancel()

	m, err := e.SurfaceOp(protocol.Op{Type: protocol.OpCreateSubagent, ThreadID: rootID, Task: "beta: read the files", ClientID: "cli-1"})
	if err != nil {
		t.Fatal(err)
	}
	created := m.(protocol.SubagentCreatedMsg)
	ev := nextOf(t, events, protocol.EventSubagentCreated)
	if ev.SubagentID != created.SubagentID || !reflect.DeepEqual(ev.ClientIDs, []string{"cli-1"}) || ev.ThreadID != rootID {
		t.Fatalf("subagent_created event %+v, answer %+v", ev, created)
	}
	// The sub-agent's question reaches the inbox.
	for {
		ev := nextOf(t, events, protocol.EventInbox)
		if n := ev.Inbox.Notification; n != nil && n.Kind == protocol.NotifyQuestion {
			break
		}
	}
	no := false
	m, err = e.SurfaceOp(protocol.Op{ThreadID: rootID, Type: protocol.OpCheckInbox, MarkAsRead: &no})
	if err != nil {
		t.Fatal(err)
	}
	inbox := m.(protocol.InboxResponseMsg)
	if len(inbox.Notifications) == 0 || inbox.Notifications[len(inbox.Notifications)-1].Notification.Text != "which file?" {
		t.Fatalf("check_inbox: %+v", inbox)
	}
	if e.UnreadCount(rootID) == 0 {
		t.Fatal("mark_as_read:false marked the notifications read")
	}
	if err := e.Submit(protocol.Op{ThreadID: rootID, Type: protocol.OpReplyToSubagent, SubagentID: created.SubagentID, Message: "stop waiting", ClientID: "cli-2"}); err != nil {
		t.Fatal(err)
	}
	if ev := nextOf(t, events, protocol.EventSubagentReplySuccess); ev.SubagentID != created.SubagentID || ev.ClientIDs[0] != "cli-2" {
		t.Fatalf("subagent_reply_success %+v", ev)
	}
	m, err = e.SurfaceOp(protocol.Op{Type: protocol.OpListSubagents, ThreadID: rootID})
	if err != nil {
		t.Fatal(err)
	}
	if l := m.(protocol.SubagentsListResponseMsg); len(l.Subagents) != 1 || l.Subagents[0].ID != created.SubagentID {
		t.Fatalf("list_subagents %+v", l)
	}
	m, err = e.SurfaceOp(protocol.Op{ThreadID: rootID, Type: protocol.OpEndSubagent, SubagentID: created.SubagentID})
	if err != nil {
		t.Fatal(err)
	}
	if end := m.(protocol.SubagentEndedMsg); end.SubagentID != created.SubagentID {
		t.Fatalf("end_subagent %+v", end)
	}
	for _, tc := range []struct {
		op   protocol.Op
		want string
	}{
		{protocol.Op{ThreadID: rootID, Type: protocol.OpEndSubagent, SubagentID: "nope"}, "end_subagent: no sub-agent nope of this agent"},
		{protocol.Op{ThreadID: rootID, Type: protocol.OpReplyToSubagent, SubagentID: "nope", Message: "hi"}, "reply_to_subagent: no sub-agent nope of this agent"},
		{protocol.Op{ThreadID: rootID, Type: protocol.OpCreateSubagent, Task: " "}, "create_subagent: task is empty"},
		{protocol.Op{ThreadID: rootID, Type: protocol.OpCheckInbox, SubagentID: "nope"}, "check_inbox: no sub-agent nope of this agent"},
		{protocol.Op{Type: protocol.OpListSubagents, ThreadID: "missing"}, "no thread missing"},
		{protocol.Op{ThreadID: rootID, Type: protocol.OpReplyToSubagent, SubagentID: created.SubagentID}, "reply_to_subagent: message is empty"},
	} {
		if err := e.Submit(tc.op); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.op, err, tc.want)
		}
	}
	free()
}

// A thread on another surface cannot take the inbox ops: its model could
// not read the notifications they start.
func TestInboxOpsNeedAnInboxThread(t *testing.T) {
	c := &surfacetest.Scripted{Who: whoOf, Reply: func(string, model.Request) model.Response { return say("x") }}
	cwd, home := t.TempDir(), t.TempDir()
	e, err := engine.New(t.Context(), engine.Options{
		Home: home, Client: c, Model: "gpt-test", Cwd: cwd, Headless: true, ApprovalPolicy: protocol.ApprovalNever,
		Templates: templates.Load(templates.Dirs{Cwd: cwd, GroveHome: home}, templates.Options{}),
		Surfaces:  []engine.SurfaceFactory{surface.CollabFactory, New}, SelectSurface: surface.Selector(surface.Collab),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { shutdown(e) })
	root, err := e.StartRoot()
	if err != nil {
		t.Fatal(err)
	}
	err = e.Submit(protocol.Op{Type: protocol.OpCreateSubagent, ThreadID: root, Task: "x"})
	if err == nil || !strings.Contains(err.Error(), `uses the "collab" tool surface; this op belongs to the "inbox" surface`) {
		t.Fatalf("create_subagent on a collab thread: %v", err)
	}
	if subs := e.Subagents(root); len(subs) != 0 {
		t.Fatalf("a sub-agent was created: %+v", subs)
	}
}
