package model

import (
	"bytes"
	"io"
	"net/http"
	"testing"

	"github.com/grovecli/grove/core/model/modeltest"
	"github.com/openai/openai-go/v3/packages/ssestream"
)

// BenchmarkAssemble is the client's own share of BenchmarkStreamToolCall:
// SSE decoding and assembly of the same recorded reply, without HTTP.
func BenchmarkAssemble(b *testing.B) {
	for _, wire := range []string{"chat", "responses"} {
		b.Run(wire, func(b *testing.B) {
			s := modeltest.NewServer(b)
			s.Enqueue(modeltest.Reply{Text: "Running the tests now.", ChunkSize: 16, ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: "exec_command", Arguments: `{"cmd":"go test ./... -run TestStream -count=1","timeout_ms":60000,"workdir":"core/model"}`}}})
			path := map[string]string{"chat": "/chat/completions", "responses": "/responses"}[wire]
			res, err := http.Post(s.URL()+path, "application/json", bytes.NewReader([]byte(`{"model":"m","stream_options":{"include_usage":true}}`)))
			if err != nil {
				b.Fatal(err)
			}
			raw, _ := io.ReadAll(res.Body)
			res.Body.Close()
			http.DefaultClient.CloseIdleConnections()
			b.ReportAllocs()
			for b.Loop() {
				var asm assembler = newChatAssembler(&delivery{onDelta: func(Delta) {}})
				if wire == "responses" {
					asm = newResponsesAssembler(&delivery{onDelta: func(Delta) {}})
				}
				dec := ssestream.NewDecoder(&http.Response{Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(bytes.NewReader(raw))})
				for dec.Next() {
					if _, err := asm.event(dec.Event().Type, dec.Event().Data); err != nil {
						b.Fatal(err)
					}
				}
				if r := asm.response(); len(r.ToolCalls) != 1 || r.Text == "" {
					b.Fatal(r)
				}
			}
		})
	}
}
