package model_test

import (
	"context"
	"testing"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/model/modeltest"
)

// BenchmarkStreamToolCall: one streamed tool-call reply from the in-process
// server, per wire API (client overhead + loopback HTTP).
func BenchmarkStreamToolCall(b *testing.B) {
	for _, wire := range []string{"chat", "responses"} {
		b.Run(wire, func(b *testing.B) {
			s := modeltest.Start()
			defer s.Close()
			s.Handle(func(modeltest.CapturedRequest) modeltest.Reply {
				return modeltest.Reply{ChunkSize: 16, ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: "exec_command", Arguments: `{"cmd":"go test ./...","timeout_ms":60000}`}}}
			})
			c, _ := model.New(model.ProviderConfig{Name: "bench", BaseURL: s.URL(), APIKey: "k", WireAPI: wire})
			r := req()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := c.Stream(context.Background(), r, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
