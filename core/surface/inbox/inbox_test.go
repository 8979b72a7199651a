package inbox

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/surface/surfacetest"
	"github.com/grovecli/grove/core/testkit"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

// rootScript is a parent that starts one sub-agent, answers its question
// and finishes once the sub-agent's final result is in its inbox.
func rootScript(task string, answer func(question string) string) func(model.Request) model.Response {
	var n atomic.Int32
	return func(req model.Request) model.Response {
		id := fmt.Sprintf("r%d", n.Add(1))
		it := last(req)
		switch {
		case len(req.Items) == 1:
			return call(id, ToolCreate, fmt.Sprintf(`{"task":%q}`, task))
		case it.Type == protocol.ItemMessage && strings.Contains(it.Content, "new notifications from sub-agents"):
			return call(id, ToolCheck, `{}`)
		case it.Type == protocol.ItemFunctionCallOutput && strings.Contains(it.Output, `"notifications"`):
			if strings.Contains(it.Output, "FINAL:") {
				return say("all done")
			}
			if q := questionIn(it.Output); q != "" && answer != nil {
				// Replies go to the sub-agent named in the inbox.
				return call(id, ToolReply, fmt.Sprintf(`{"subagent_id":%q,"message":%q}`, fromIn(it.Output), answer(q)))
			}
		}
		return say("waiting for sub-agents")
	}
}

func questionIn(out string) string {
	var m struct {
		Notifications []struct {
			Notification map[string]string `json:"notification"`
			Read         bool              `json:"read"`
		} `json:"notifications"`
	}
	_ = jsonUnmarshal(out, &m)
	for _, n := range m.Notifications {
		if n.Notification["type"] == "question" && !n.Read {
			return n.Notification["content"]
		}
	}
	return ""
}

func fromIn(out string) string {
	var m struct {
		Notifications []struct {
			ID string `json:"subagent_id"`
		} `json:"notifications"`
	}
	_ = jsonUnmarshal(out, &m)
	if len(m.Notifications) == 0 {
		return ""
	}
	return m.Notifications[0].ID
}

// A sub-agent asks its parent a question mid-run; the idle parent is woken,
// reads the inbox, answers through reply_to_subagent, and the sub-agent's
// final message arrives as a completed notification.
func TestQuestionAnsweredThroughReply(t *testing.T) {
	root := rootScript("alpha: paint the fence", func(q string) string { return "blue" })
	c := &surfacetest.Scripted{Who: whoOf, Reply: func(who string, req model.Request) model.Response {
		if who == "root" {
			return root(req)
		}
		it := last(req)
		switch {
		case len(req.Items) == 1:
			return call("a1", ToolNotify, `{"type":"question","content":"which colour?"}`)
		case it.Type == protocol.ItemFunctionCallOutput:
			return say("asked which colour; waiting")
		case strings.Contains(it.Content, "blue"):
			return say("FINAL: painted it blue")
		}
		return say("?")
	}}
	e, rootID := start(t, c, setup{})
	st := runUntilSettled(t, e, rootID, "get the fence painted")
	if st.Kind != protocol.StatusCompleted || st.Message != "all done" {
		t.Fatalf("root ended %+v", st)
	}
	subs := e.Subagents(rootID)
	if len(subs) != 1 || subs[0].State != protocol.SubagentCompleted || subs[0].Task != "alpha: paint the fence" {
		t.Fatalf("subagents: %+v", subs)
	}
	if subs[0].Unread != 0 {
		t.Fatalf("unread after reading: %d", subs[0].Unread)
	}
	// The child got the answer as a message from its parent.
	var sawAnswer bool
	for _, req := range c.Requests("alpha:") {
		for _, it := range req.Items {
			if strings.Contains(it.Content, "blue") && strings.Contains(it.Content, "[message from") {
				sawAnswer = true
			}
		}
	}
	if !sawAnswer {
		t.Fatal("the sub-agent never received the reply")
	}
	// The root was woken by a note, not by the user.
	woken := 0
	for _, req := range c.Requests("root") {
		if it := last(req); it.Type == protocol.ItemMessage && it.Content == WakeNote(1) || strings.HasSuffix(it.Content, "new notifications from sub-agents. Read them with check_inbox.") {
			woken++
		}
	}
	if woken < 2 {
		t.Fatalf("root woken %d times, want at least 2 (question, then completion)", woken)
	}
	notes, err := e.ReadInbox(rootID, "", false)
	if err != nil {
		t.Fatal(err)
	}
	kinds := []string{}
	for _, n := range notes {
		kinds = append(kinds, n.Kind+":"+n.Text)
		if !n.Read {
			t.Fatalf("notification not read: %+v", n)
		}
	}
	// The answer may reach the sub-agent before or after its first turn
	// ended (then that turn's reply is a completion of its own).
	if len(kinds) < 2 || kinds[0] != "completed:FINAL: painted it blue" || kinds[len(kinds)-1] != "question:which colour?" {
		t.Fatalf("inbox (most recent first) = %q", kinds)
	}
}

// Every tool's errors: unknown ids, another agent's sub-agent, a bad
// notification type, a notify from an agent without a parent inbox.
func TestErrors(t *testing.T) {
	c := &surfacetest.Scripted{Who: whoOf, Reply: func(who string, req model.Request) model.Response {
		if who != "root" {
			return say("done")
		}
		switch len(req.Items) {
		case 1:
			return model.Response{ToolCalls: []model.ToolCallRequest{
				{CallID: "e1", Name: ToolReply, Arguments: `{"subagent_id":"nope","message":"hi"}`},
				{CallID: "e2", Name: ToolEnd, Arguments: `{"subagent_id":"nope"}`},
				{CallID: "e3", Name: ToolCheck, Arguments: `{"subagent_id":"nope"}`},
				{CallID: "e4", Name: ToolCreate, Arguments: `{"task":"  "}`},
				{CallID: "e5", Name: ToolReply, Arguments: `{"subagent_id":"x","message":" "}`},
				{CallID: "e6", Name: ToolCreate, Arguments: `{"task":`},
			}}
		}
		return say("checked")
	}}
	e, rootID := start(t, c, setup{})
	runUntilSettled(t, e, rootID, "try errors")
	for id, want := range map[string]string{
		"e1": "reply_to_subagent: no sub-agent nope of this agent",
		"e2": "end_subagent: no sub-agent nope of this agent",
		"e3": "check_inbox: no sub-agent nope of this agent",
		"e4": "create_subagent: task is empty",
		"e5": "reply_to_subagent: message is empty",
		"e6": "invalid arguments for create_subagent",
	} {
		out, ok := output(c, "root", id)
		if !ok || !strings.Contains(out, want) {
			t.Errorf("%s: got %q, want %q", id, out, want)
		}
	}
	// notify_parent outside a sub-agent, and with a bad type.
	if _, err := e.PostToParent(rootID, protocol.NotifyMessage, "hi"); err == nil || !strings.Contains(err.Error(), "no parent inbox") {
		t.Errorf("root notify: %v", err)
	}
	if _, err := e.PostToParent(rootID, "shout", "hi"); err == nil || !strings.Contains(err.Error(), `invalid notification type "shout"`) {
		t.Errorf("bad type: %v", err)
	}
}

// A sibling cannot read, answer or end another agent's sub-agents;
// end_subagent stops an active sub-agent with its subtree (cascade) and
// reports error state; max_depth applies to create_subagent.
func TestOwnershipCascadeAndDepth(t *testing.T) {
	release := make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	var grandID atomic.Value
	c := &surfacetest.Scripted{Who: whoOf}
	c.Reply = func(who string, req model.Request) model.Response {
		it := last(req)
		switch who {
		case "root":
			switch {
			case len(req.Items) == 1:
				return call("c1", ToolCreate, `{"task":"boss: start a worker"}`)
			case it.CallID == "c1":
				return say("started")
			}
			return say("idle")
		case "boss:":
			switch {
			case len(req.Items) == 1:
				return call("b1", ToolCreate, `{"task":"worker: work slowly"}`)
			case it.CallID == "b1":
				grandID.Store(jsonOf(t, it.Output)["subagent_id"].(string))
			}
			<-release
			return say("boss done")
		case "worker:":
			if len(req.Items) == 1 {
				return call("w1", ToolCreate, `{"task":"deep: too deep"}`)
			}
			<-release
			return say("worker done")
		}
		return say("?")
	}
	e, rootID := start(t, c, setup{maxDepth: 2})
	t.Cleanup(free) // runs before the engine's shutdown
	events, cancel := e.Subscribe()
	defer cancel()
	if err := e.SubmitText(rootID, "go"); err != nil {
		t.Fatal(err)
	}
	// Wait until the worker asked for the too-deep agent.
	for {
		if _, ok := output(c, "worker:", "w1"); ok && grandID.Load() != nil {
			break
		}
		// The requests are recorded outside events: poll as well.
		select {
		case <-events:
		case <-time.After(10 * time.Millisecond):
		}
	}
	out, _ := output(c, "worker:", "w1")
	if !strings.Contains(out, "max_depth reached") {
		t.Fatalf("depth limit: %s", out)
	}
	if e.Settled() {
		t.Fatal("Settled while sub-agents work")
	}
	subs := e.Subagents(rootID)
	if len(subs) != 1 {
		t.Fatalf("root subs %+v", subs)
	}
	boss := subs[0].ID
	grand := protocol.ThreadID(grandID.Load().(string))
	// The root does not track the boss's worker itself.
	if err := e.ReplyToSubagent(rootID, grand, "hi", nil); err == nil {
		t.Fatal("root replied to a grandchild it does not track")
	}
	if _, err := e.EndSubagent(boss, rootID); err == nil {
		t.Fatal("a sub-agent ended its parent")
	}
	final, err := e.EndSubagent(rootID, boss)
	if err != nil {
		t.Fatal(err)
	}
	free()
	if final.State != protocol.SubagentError || !strings.Contains(final.ErrorMessage, "ended by its parent") {
		t.Fatalf("final state %+v", final)
	}
	for _, id := range []protocol.ThreadID{boss, grand} {
		rep, _ := e.Report(id)
		if rep.Status.Kind != protocol.StatusShutdown {
			t.Fatalf("%s not shut down by the cascade: %v", id, rep.Status)
		}
	}
	if err := e.ReplyToSubagent(rootID, boss, "more", nil); err == nil || !strings.Contains(err.Error(), "was ended") {
		t.Fatalf("reply to an ended sub-agent: %v", err)
	}
	waitSettled(t, e, rootID, events)
}

// Inbox contents and read flags are in the rollout: a resumed session has
// the same inbox, unread notifications included, and its root is woken for
// ones it was never told about.
func TestResumeRestoresInbox(t *testing.T) {
	home := t.TempDir()
	c := &surfacetest.Scripted{Who: whoOf, Reply: func(who string, req model.Request) model.Response {
		if who == "root" {
			switch it := last(req); {
			case len(req.Items) == 1:
				return call("c1", ToolCreate, `{"task":"scout: look around"}`)
			case it.CallID == "c1":
				return say("started")
			case it.Type == protocol.ItemMessage && strings.Contains(it.Content, "new notifications"):
				// Reads only the scout's notifications without marking them.
				return call("k1", ToolCheck, `{"mark_as_read":false}`)
			}
			return say("later")
		}
		switch it := last(req); {
		case len(req.Items) == 1:
			return call("s1", ToolNotify, `{"type":"message","content":"found a door"}`)
		case it.CallID == "s1":
			return say("scouted")
		}
		return say("?")
	}}
	e := newEngine(t, c, setup{home: home})
	rootID, err := e.StartRoot()
	if err != nil {
		t.Fatal(err)
	}
	runUntilSettled(t, e, rootID, "scout")
	before, _ := e.ReadInbox(rootID, "", false)
	subsBefore := e.Subagents(rootID)
	if len(before) != 2 || before[0].Read || subsBefore[0].Unread != 2 {
		t.Fatalf("before: %+v %+v", before, subsBefore)
	}
	shutdown(e)

	// The rollout holds the inbox events.
	entry, err := rollout.FindSession(home, string(rootID))
	if err != nil {
		t.Fatal(err)
	}
	sess, err := rollout.Read(entry.RolloutPath)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ev := range sess.Events {
		if ev.Type == protocol.EventInbox {
			n++
		}
	}
	if n < 4 {
		t.Fatalf("rollout has %d inbox events", n)
	}

	e2 := newEngine(t, c, setup{home: home})
	id, err := e2.ResumeSession(string(rootID))
	if err != nil {
		t.Fatal(err)
	}
	after, _ := e2.ReadInbox(id, "", false)
	if !reflect.DeepEqual(stripTime(before), stripTime(after)) {
		t.Fatalf("inbox after resume\n%+v\nwant\n%+v", after, before)
	}
	for i := range before {
		if !before[i].Timestamp.Equal(after[i].Timestamp) {
			t.Fatalf("timestamp %d changed", i)
		}
	}
	subsAfter := e2.Subagents(id)
	if len(subsAfter) != 1 || subsAfter[0].Unread != 2 || subsAfter[0].State != protocol.SubagentCompleted || subsAfter[0].Task != "scout: look around" {
		t.Fatalf("subagents after resume %+v", subsAfter)
	}
	// The resumed sub-agent continues with the reply (reopened from its rollout).
	if err := e2.ReplyToSubagent(id, subsAfter[0].ID, "scout: look again", nil); err != nil {
		t.Fatal(err)
	}
	runUntilSettled(t, e2, id, "anything new?")
}

func stripTime(ns []protocol.InboxNotification) []protocol.InboxNotification {
	out := append([]protocol.InboxNotification(nil), ns...)
	for i := range out {
		out[i].Timestamp = out[i].Timestamp.UTC().Round(0)
	}
	return out
}

// list_subagents and end_subagent as the model sees them: seed 001's
// SubagentInfo fields, and the error state as {"error":{"message"}}.
func TestListAndEndTools(t *testing.T) {
	release := make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	c := &surfacetest.Scripted{Who: whoOf}
	c.Reply = func(who string, req model.Request) model.Response {
		if who != "root" {
			<-release
			return say("never")
		}
		it := last(req)
		switch {
		case len(req.Items) == 1:
			return call("c1", ToolCreate, `{"task":"idle: wait for ever"}`)
		case it.CallID == "c1":
			return call("l1", ToolList, `{}`)
		case it.CallID == "l1":
			id := jsonOf(t, it.Output)["subagents"].([]any)[0].(map[string]any)["id"].(string)
			return call("x1", ToolEnd, fmt.Sprintf(`{"subagent_id":%q}`, id))
		case it.CallID == "x1":
			return call("l2", ToolList, `{}`)
		}
		return say("done")
	}
	e, rootID := start(t, c, setup{})
	t.Cleanup(free)
	runUntilSettled(t, e, rootID, "list and end")
	free()
	first := jsonOf(t, mustOutput(t, c, "l1"))["subagents"].([]any)[0].(map[string]any)
	for _, k := range []string{"id", "task", "state", "created_at", "last_activity", "unread_count"} {
		if _, ok := first[k]; !ok {
			t.Errorf("list_subagents lacks %s: %v", k, first)
		}
	}
	if first["state"] != "active" || first["task"] != "idle: wait for ever" || first["unread_count"] != float64(0) {
		t.Errorf("list_subagents: %v", first)
	}
	end := jsonOf(t, mustOutput(t, c, "x1"))
	if fmt.Sprint(end["final_state"]) != "map[error:map[message:ended by its parent before it finished]]" {
		t.Errorf("end_subagent: %v", end)
	}
	after := jsonOf(t, mustOutput(t, c, "l2"))["subagents"].([]any)[0].(map[string]any)
	if fmt.Sprint(after["state"]) != "map[error:map[message:ended by its parent before it finished]]" {
		t.Errorf("list after end: %v", after)
	}
}

func mustOutput(t *testing.T, c *surfacetest.Scripted, callID string) string {
	t.Helper()
	out, ok := output(c, "root", callID)
	if !ok {
		t.Fatalf("no output for %s", callID)
	}
	return out
}

// A parent the user interrupted is not woken by its sub-agents' news (the
// interrupt cascades, and each interrupted sub-agent posts an error): it
// stays stopped until it is given input.
func TestInterruptedParentIsNotWoken(t *testing.T) {
	release := make(chan struct{})
	c := &surfacetest.Scripted{Who: whoOf}
	c.Reply = func(who string, req model.Request) model.Response {
		if who == "root" && len(req.Items) == 1 {
			return call("c1", ToolCreate, `{"task":"busy: work"}`)
		}
		<-release // works until interrupted (Stream returns on ctx)
		return say("late")
	}
	e, rootID := start(t, c, setup{})
	t.Cleanup(func() { close(release) })
	if err := e.SubmitText(rootID, "start"); err != nil {
		t.Fatal(err)
	}
	// Wait until both the root (after create) and the child are at work.
	testkit.Eventually(t, "the root and the child at work", func() bool {
		return len(c.Requests("root")) >= 2 && len(c.Requests("busy:")) >= 1
	})
	if err := e.Submit(protocol.Op{Type: protocol.OpInterrupt, ThreadID: rootID}); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, "the interrupted child's notification", func() bool {
		notes, _ := e.ReadInbox(rootID, "", false)
		if len(notes) > 0 && (notes[0].Kind != protocol.NotifyError || !strings.HasPrefix(notes[0].Text, "interrupted")) {
			t.Fatalf("notification %+v", notes[0])
		}
		return len(notes) > 0
	})
	// The wake would have happened under the lock that posted the note.
	if rep, _ := e.Report(rootID); rep.Status.Kind != protocol.StatusInterrupted {
		t.Fatalf("interrupted root was woken: %v", rep.Status)
	}
	if e.Settled() {
		t.Fatal("Settled with an unannounced notification")
	}
}
