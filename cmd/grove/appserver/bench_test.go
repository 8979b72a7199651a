package appserver

import (
	"io"
	"testing"

	"github.com/grovecli/grove/protocol"
)

// BenchmarkDeltaNotification measures turning one streamed message delta
// into its item/agentMessage/delta line (state update, JSON, write).
func BenchmarkDeltaNotification(b *testing.B) {
	s := &Server{out: &writer{w: io.Discard}, threads: map[protocol.ThreadID]*thread{}, approvals: map[int64]*pendingApproval{}}
	sess := &session{root: "root"}
	s.threads["root"] = newThread(sess, protocol.ThreadInfo{ID: "root"})
	ev := protocol.Event{Type: protocol.EventMessageDelta, ThreadID: "root", TurnID: "turn", Delta: "some streamed words "}
	b.ReportAllocs()
	for b.Loop() {
		s.onEvent(sess, ev)
		if s.threads["root"].msgText.Len() > 1<<20 {
			s.threads["root"].msgText.Reset()
		}
	}
}
