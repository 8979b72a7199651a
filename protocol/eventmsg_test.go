package protocol

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

// legacyEvents are events as the engine has always built them (payload
// pointers on the envelope), one per kind.
func legacyEvents() []Event {
	info := ThreadInfo{ID: "t1", ParentID: "root", Depth: 1, Source: SourceSpawned, AgentType: "worker", Model: "m", Cwd: "/w", Sandbox: SandboxPolicy{Mode: SandboxReadOnly}, Status: Running(), Surface: "task"}
	call := ToolCall{CallID: "c1", Name: "exec_command", Arguments: `{"cmd":"ls"}`}
	end := call
	end.Output, end.DurationMS, end.Summary, end.AgentIDs = "ok", 12, "ran ls", []ThreadID{"t2"}
	req := ApprovalRequest{ID: "a1", Kind: ApprovalWorkingDir, Dir: "/x", ThreadID: "t1"}
	st := Completed("done", true)
	note := "busy"
	use, total := TokenUsage{InputTokens: 3, OutputTokens: 2, TotalTokens: 5}, TokenUsage{InputTokens: 30, OutputTokens: 20, TotalTokens: 50}
	plan := Plan{Explanation: "why", Steps: []PlanStep{{Step: "a", Status: "in_progress"}}}
	bg := BackgroundEvent{ChildID: "t2", Status: st, IsFinal: true, Message: "agent t2 completed"}
	inbox := InboxChange{Read: []int{1, 2}}
	return []Event{
		{Type: EventThreadStarted, ThreadID: "t1", Thread: &info},
		{Type: EventThreadClosed, ThreadID: "t1"},
		{Type: EventTurnStarted, ThreadID: "t1", TurnID: "u1", ClientIDs: []string{"k1"}},
		{Type: EventTurnCompleted, ThreadID: "t1", TurnID: "u1", Message: "last words"},
		{Type: EventMessageDelta, ThreadID: "t1", TurnID: "u1", Delta: "he"},
		{Type: EventMessageReset, ThreadID: "t1", TurnID: "u1"},
		{Type: EventReasoningDelta, ThreadID: "t1", TurnID: "u1", Delta: "hm"},
		{Type: EventMessage, ThreadID: "t1", TurnID: "u1", Message: "hello", Interrupted: true},
		{Type: EventUserMessage, ThreadID: "t1", TurnID: "u1", Message: "do it", InputID: "q1", ClientIDs: []string{"k2"}},
		{Type: EventAgentInput, ThreadID: "t1", TurnID: "u1", Message: "from root", From: "root", InputID: "q2", ClientIDs: []string{"k3"}},
		{Type: EventToolCallBegin, ThreadID: "t1", TurnID: "u1", Tool: &call},
		{Type: EventToolCallEnd, ThreadID: "t1", TurnID: "u1", Tool: &end},
		{Type: EventToolProgress, ThreadID: "t1", TurnID: "u1", Tool: &call, Message: "50%"},
		{Type: EventPlanUpdated, ThreadID: "t1", TurnID: "u1", Plan: &plan},
		{Type: EventApprovalRequested, ThreadID: "t1", Approval: &req},
		{Type: EventApprovalResolved, ThreadID: "t1", Approval: &req, Decision: DecisionApproved},
		{Type: EventStatusChanged, ThreadID: "t1", Status: &st},
		{Type: EventBackground, ThreadID: "root", Background: &bg},
		{Type: EventNoteUpdated, ThreadID: "t1", Note: &note},
		{Type: EventTokenUsage, ThreadID: "t1", TurnID: "u1", Usage: &use, TotalUsage: &total},
		{Type: EventError, ThreadID: "t1", TurnID: "u1", Message: "boom"},
		{Type: EventWarning, ThreadID: "t1", Message: "careful"},
		{Type: EventStreamRetry, ThreadID: "t1", TurnID: "u1", Message: "retry 1"},
		{Type: EventShutdownComplete, ThreadID: "root"},
		{Type: EventInbox, ThreadID: "root", Inbox: &inbox},
		{Type: EventExecOutputDelta, ThreadID: "t1", TurnID: "u1", Tool: &call, Delta: "out"},
		{Type: EventContextCompacted, ThreadID: "t1", TurnID: "u1", Compaction: &Compaction{Trigger: CompactAuto, TokensBefore: 900, TokensAfter: 120}},
		{Type: EventPatchReverted, ThreadID: "t1", Revert: &PatchRevert{CallID: "c1", Patch: "*** Begin Patch\n*** End Patch", Hunks: []HunkRef{{File: 0, Hunk: 1}}, Files: []string{"a.go"}}},
	}
}

func TestEveryKindRoundTripsWithTheSameJSON(t *testing.T) {
	seen := map[EventType]bool{}
	for _, legacy := range legacyEvents() {
		m, err := legacy.Msg()
		if err != nil {
			t.Fatalf("%s: %v", legacy.Type, err)
		}
		if m.Kind() != legacy.Type {
			t.Errorf("%s: message kind %s", legacy.Type, m.Kind())
		}
		seen[m.Kind()] = true
		rebuilt := NewEvent(legacy.ThreadID, legacy.TurnID, m)
		a, _ := json.Marshal(legacy)
		b, _ := json.Marshal(rebuilt)
		if string(a) != string(b) {
			t.Errorf("%s: JSON changed\nlegacy %s\ntyped  %s", legacy.Type, a, b)
		}
		again, err := rebuilt.Msg()
		if err != nil || !reflect.DeepEqual(again, m) {
			t.Errorf("%s: round trip %#v, %v; want %#v", legacy.Type, again, err, m)
		}
	}
	if len(seen) != 28 {
		t.Errorf("covered %d kinds, want all 28", len(seen))
	}
}

// oldRolloutLines are event_msg payloads as rollouts written before typed
// events hold them (taken from a real session file).
var oldRolloutLines = []string{
	`{"type":"thread_started","thread_id":"019a","timestamp":"2026-11-20T10:00:00Z","seq":1,"thread":{"id":"019a","depth":0,"source":"root","model":"gpt-5","cwd":"/w","sandbox":{"mode":"workspace-write"},"started_at":"2026-11-20T10:00:00Z","status":{"completed":null}}}`,
	`{"type":"status_changed","thread_id":"019a","timestamp":"2026-11-20T10:00:01Z","status":"running"}`,
	`{"type":"status_changed","thread_id":"019a","timestamp":"2026-11-20T10:00:09Z","status":{"completed":"all done"}}`,
	`{"type":"tool_call_end","thread_id":"019a","timestamp":"2026-11-20T10:00:05Z","turn_id":"u","tool":{"call_id":"c","name":"exec_command","output":"x","exit_code":0,"duration_ms":4}}`,
	`{"type":"thread_note_updated","thread_id":"019a","timestamp":"2026-11-20T10:00:02Z","note":""}`,
	`{"type":"background_event","thread_id":"019a","timestamp":"2026-11-20T10:00:08Z","background":{"child_id":"019b","status":{"errored":"model error"},"is_final":true,"message":"agent errored"}}`,
}

func TestOldRolloutLinesLoadAsTypedMessages(t *testing.T) {
	want := []EventMsg{
		ThreadStartedMsg{}, StatusChangedMsg{Status: Running()}, StatusChangedMsg{Status: Completed("all done", true)},
		ToolCallEndMsg{}, NoteUpdatedMsg{Note: ""}, BackgroundMsg{},
	}
	for i, line := range oldRolloutLines {
		var ev Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		m, err := ev.Msg()
		if err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		if reflect.TypeOf(m) != reflect.TypeOf(want[i]) {
			t.Fatalf("line %d: %T, want %T", i, m, want[i])
		}
		switch m := m.(type) {
		case ThreadStartedMsg:
			if m.Thread.Model != "gpt-5" || m.Thread.Surface != "" {
				t.Errorf("thread = %+v", m.Thread)
			}
		case StatusChangedMsg:
			if !reflect.DeepEqual(m, want[i]) {
				t.Errorf("line %d: %+v, want %+v", i, m, want[i])
			}
		case ToolCallEndMsg:
			if m.Call.ExitCode == nil || *m.Call.ExitCode != 0 || m.Call.Output != "x" {
				t.Errorf("tool = %+v", m.Call)
			}
		case BackgroundMsg:
			if m.Event.Status.Kind != StatusErrored || !m.Event.IsFinal {
				t.Errorf("background = %+v", m.Event)
			}
		}
		// Written again, the line is what it was (timestamps aside).
		b, _ := json.Marshal(NewEvent(ev.ThreadID, ev.TurnID, m))
		var again Event
		_ = json.Unmarshal(b, &again)
		again.Timestamp, again.Seq = ev.Timestamp, ev.Seq
		if !reflect.DeepEqual(again, ev) {
			t.Errorf("line %d rewritten differs:\n%s\n%s", i, line, b)
		}
	}
}

func TestMalformedEventsAreErrorsNotPanics(t *testing.T) {
	for _, line := range []string{
		`{"type":"status_changed","thread_id":"x"}`,
		`{"type":"tool_call_end","thread_id":"x"}`,
		`{"type":"thread_started","thread_id":"x"}`,
		`{"type":"approval_resolved","thread_id":"x","decision":"approved"}`,
		`{"type":"from_the_future","thread_id":"x"}`,
	} {
		var ev Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatal(err)
		}
		m, err := ev.Msg()
		var me *MalformedEventError
		if m != nil || !errors.As(err, &me) {
			t.Errorf("%s: %v, %v", line, m, err)
		}
	}
}

// TestEveryCodecReadsItsOwnKind: each registry entry builds a message of its own kind from an
// envelope that carries every payload, and NewEvent writes it back to the same message.
func TestEveryCodecReadsItsOwnKind(t *testing.T) {
	list, notes := []SubagentInfo{{}}, []SubagentNotification{{}}
	note := "n"
	full := Event{
		ThreadID: "t", Message: "m", Delta: "d", SubagentID: "s",
		Thread: &ThreadInfo{ID: "t"}, Tool: &ToolCall{CallID: "c"}, Plan: &Plan{}, Approval: &ApprovalRequest{},
		Status: &AgentStatus{Kind: StatusRunning}, Background: &BackgroundEvent{}, Note: &note,
		Usage: &TokenUsage{InputTokens: 1}, TotalUsage: &TokenUsage{InputTokens: 2}, Inbox: &InboxChange{},
		SubagentActivity: &SubagentActivityEvent{}, FinalState: &SubagentState{}, Subagents: &list,
		Notifications: &notes, Compaction: &Compaction{}, Revert: &PatchRevert{}, UserInput: &UserInputRequest{},
		WebSearch: &WebSearchCall{},
	}
	for kind := range eventCodecs {
		ev := full
		ev.Type = kind
		m, err := ev.Msg()
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if m.Kind() != kind {
			t.Errorf("%s: the codec read a %T of kind %s", kind, m, m.Kind())
		}
		again, err := NewEvent("t", "", m).Msg()
		if err != nil || !reflect.DeepEqual(again, m) {
			t.Errorf("%s: written and read back as %#v, %v; want %#v", kind, again, err, m)
		}
	}
}
