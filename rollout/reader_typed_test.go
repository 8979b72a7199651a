package rollout

import (
	"strings"
	"testing"

	"github.com/grovecli/grove/protocol"
)

// TestReadSkipsEventsWithoutTheirPayload: an event line whose type needs a
// payload it lacks is skipped with a warning naming it, so no reader of
// Session.Events meets a nil payload and the last good status stands; a
// kind this grove does not know and the rollout-only input_queued are kept.
func TestReadSkipsEventsWithoutTheirPayload(t *testing.T) {
	path := writeFile(t, lines(metaLine,
		`{"type":"event_msg","payload":{"type":"status_changed","thread_id":"t","status":"running"}}`,
		`{"type":"event_msg","payload":{"type":"status_changed","thread_id":"t"}}`,
		`{"type":"event_msg","payload":{"type":"thread_note_updated","thread_id":"t"}}`,
		`{"type":"event_msg","payload":{"type":"tool_call_end","thread_id":"t"}}`,
		`{"type":"event_msg","payload":{"type":"from_the_future","thread_id":"t"}}`,
		`{"type":"event_msg","payload":{"type":"input_queued","thread_id":"t","input_id":"q1","input":{"type":"message","role":"user","content":"hi"}}}`,
	))
	s, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Warnings) != 3 {
		t.Fatalf("warnings %q, want 3", s.Warnings)
	}
	for i, want := range []string{"has no status", "has no note", "has no tool"} {
		if !strings.Contains(s.Warnings[i], want) {
			t.Errorf("warning %q does not say %q", s.Warnings[i], want)
		}
	}
	if s.LastStatus == nil || s.LastStatus.Kind != protocol.StatusRunning {
		t.Errorf("last status %v, want running", s.LastStatus)
	}
	if s.NoteSet {
		t.Errorf("a note line without a note set the note")
	}
	var kinds []protocol.EventType
	for _, ev := range s.Events {
		kinds = append(kinds, ev.Type)
	}
	if len(kinds) != 3 || kinds[0] != protocol.EventStatusChanged || kinds[1] != "from_the_future" || kinds[2] != protocol.EventInputQueued {
		t.Errorf("events %v", kinds)
	}
	st, _, ok, err := LastStatusChange(path)
	if err != nil || !ok || st.Kind != protocol.StatusRunning {
		t.Errorf("LastStatusChange %v %v %v, want running", st, ok, err)
	}
}
