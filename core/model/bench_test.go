package model_test

import (
	"context"
	"testing"

	"github.com/grovecli/grove/core/model/modeltest"
)

// BenchmarkStreamToolCall measures one streamed reply with a tool call
// (arguments in 16-byte chunks) from the in-process server, per wire API:
// client overhead plus loopback HTTP and the mock's encoding.
func BenchmarkStreamToolCall(b *testing.B) {
	for _, wire := range wires {
		b.Run(wire, func(b *testing.B) {
			s := modeltest.NewServer(b)
			s.Handle(func(modeltest.CapturedRequest) modeltest.Reply {
				return modeltest.Reply{Text: "Running the tests now.", ChunkSize: 16, ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: "exec_command", Arguments: `{"cmd":"go test ./... -run TestStream -count=1","timeout_ms":60000,"workdir":"core/model"}`}}}
			})
			c := client(b, s, wire)
			r := req()
			b.ReportAllocs()
			for b.Loop() {
				resp, err := c.Stream(context.Background(), r, nil)
				if err != nil || len(resp.ToolCalls) != 1 {
					b.Fatal(resp, err)
				}
			}
		})
	}
}
