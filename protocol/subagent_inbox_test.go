package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/grovecli/grove/core/testkit"
)

// golden compares got with testdata/seed001/name (indented JSON), or
// rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Indent(&buf, got, "", "  "); err != nil {
		t.Fatalf("%s: %v\n%s", name, err, got)
	}
	buf.WriteByte('\n')
	testkit.Golden(t, filepath.Join("testdata", "seed001", name), buf.Bytes())
}

// seed001Events are one event of each of seed 001's variants, on the
// parent's thread, answering an op with client id "k1".
func seed001Events() map[string]EventMsg {
	at := time.Date(2026, 11, 27, 3, 0, 0, 0, time.UTC)
	return map[string]EventMsg{
		"subagent_created.json":       SubagentCreatedMsg{SubagentID: "abc-123"},
		"subagent_reply_success.json": SubagentReplySuccessMsg{SubagentID: "abc-123"},
		"subagent_ended.json":         SubagentEndedMsg{SubagentID: "abc-123", FinalState: SubagentState{Kind: SubagentError, Message: "ended by its parent before it finished"}},
		"subagents_list_response.json": SubagentsListResponseMsg{Subagents: []SubagentInfo{
			{ID: "abc-123", Task: "implement feature X", State: SubagentState{Kind: SubagentActive}, CreatedAt: at, LastActivity: at.Add(time.Minute), UnreadCount: 2},
			{ID: "def-456", Task: "write the tests", State: SubagentState{Kind: SubagentCompleted}, CreatedAt: at, LastActivity: at.Add(2 * time.Minute)},
		}},
		"subagents_list_response_empty.json": SubagentsListResponseMsg{Subagents: []SubagentInfo{}},
		"inbox_response.json": InboxResponseMsg{Notifications: []SubagentNotification{
			{SubagentID: "abc-123", Timestamp: at.Add(3 * time.Minute), Notification: NotificationType{Kind: NotifyError, Text: "model error"}, Read: true},
			{SubagentID: "def-456", Timestamp: at.Add(2 * time.Minute), Notification: NotificationType{Kind: NotifyCompleted, Text: "42 tests pass"}, Read: true},
			{SubagentID: "abc-123", Timestamp: at.Add(time.Minute), Notification: NotificationType{Kind: NotifyQuestion, Text: "which branch?"}},
			{SubagentID: "abc-123", Timestamp: at, Notification: NotificationType{Kind: NotifyMessage, Text: "started"}, Read: true},
		}},
		"inbox_response_empty.json": InboxResponseMsg{Notifications: []SubagentNotification{}},
	}
}

func TestSeed001EventVariantsMatchTheirGoldenJSON(t *testing.T) {
	for name, m := range seed001Events() {
		ev := NewEvent("parent-1", "", m)
		ev.Timestamp, ev.Seq, ev.ClientIDs = time.Date(2026, 11, 27, 3, 5, 0, 0, time.UTC), 7, []string{"k1"}
		b, err := json.Marshal(ev)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		golden(t, name, b)
		// The golden line reads back as the same typed message.
		var back Event
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := back.Msg()
		if err != nil || !reflect.DeepEqual(got, m) {
			t.Errorf("%s: read back %#v, %v; want %#v", name, got, err, m)
		}
		// The variant's own JSON (the tool result) is the envelope's fields.
		own, _ := json.Marshal(m)
		var fields map[string]json.RawMessage
		_ = json.Unmarshal(own, &fields)
		var env map[string]json.RawMessage
		_ = json.Unmarshal(b, &env)
		for k, v := range fields {
			if !bytes.Equal(env[k], v) {
				t.Errorf("%s: field %s is %s on the event, %s in the variant", name, k, env[k], v)
			}
		}
	}
}

func TestSeed001OpsMatchTheirGoldenJSON(t *testing.T) {
	no := false
	ops := map[string]Op{
		"op_create_subagent.json":   {Type: OpCreateSubagent, ThreadID: "parent-1", Task: "implement feature X", ClientID: "k1"},
		"op_list_subagents.json":    {Type: OpListSubagents, ThreadID: "parent-1"},
		"op_check_inbox.json":       {Type: OpCheckInbox, ThreadID: "parent-1", MarkAsRead: &no},
		"op_reply_to_subagent.json": {Type: OpReplyToSubagent, ThreadID: "parent-1", SubagentID: "abc-123", Message: "clarification..."},
		"op_end_subagent.json":      {Type: OpEndSubagent, ThreadID: "parent-1", SubagentID: "abc-123"},
	}
	for name, op := range ops {
		if !IsInboxOp(op.Type) {
			t.Errorf("%s: %s is not an inbox op", name, op.Type)
		}
		b, _ := json.Marshal(op)
		golden(t, name, b)
		var back Op
		if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, op) {
			t.Errorf("%s: read back %+v, %v", name, back, err)
		}
	}
}

func TestSeed001BadInputIsAnErrorNamingIt(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`"running"`, `unknown state "running"`},
		{`{"error":{"message":"x"},"active":{}}`, `is not {"error"`},
		{`{"Error":{"message":"x"}}`, `is not {"error"`},
		{`42`, "subagent state"},
	} {
		var s SubagentState
		if err := json.Unmarshal([]byte(c.in), &s); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("state %s: %v, want an error with %q", c.in, err, c.want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{`{"type":"shout","content":"x"}`, `unknown type "shout"`},
		{`{"type":"completed","content":"x"}`, `has no "summary" field`},
	} {
		var n NotificationType
		if err := json.Unmarshal([]byte(c.in), &n); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("notification %s: %v, want an error with %q", c.in, err, c.want)
		}
	}
	if _, err := json.Marshal(SubagentState{Kind: "paused"}); err == nil {
		t.Error("an unknown state marshalled")
	}
	for _, line := range []string{
		`{"type":"subagent_created","thread_id":"p"}`,
		`{"type":"subagent_ended","thread_id":"p","subagent_id":"a"}`,
		`{"type":"subagents_list_response","thread_id":"p"}`,
		`{"type":"inbox_response","thread_id":"p"}`,
	} {
		var ev Event
		_ = json.Unmarshal([]byte(line), &ev)
		var me *MalformedEventError
		if m, err := ev.Msg(); m != nil || !errors.As(err, &me) {
			t.Errorf("%s: %v, %v", line, m, err)
		}
	}
}
