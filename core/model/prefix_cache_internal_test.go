package model

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/grovecli/grove/protocol"
)

// randomItem is one history item of any kind grove stores, with the
// awkward cases: arguments that are not an object, images, HTML
// characters, reasoning with and without encrypted content.
func randomItem(r *rand.Rand, n int) protocol.Item {
	id := fmt.Sprintf("call_%d", n)
	switch r.IntN(8) {
	case 0:
		return protocol.UserMessage(fmt.Sprintf("ask %d <b>&amp;</b> ünïcode", n))
	case 1:
		it := protocol.UserMessage(fmt.Sprintf("look %d", n))
		it.Images = []string{"data:image/png;base64,AAAA"}
		return it
	case 2:
		return protocol.AssistantMessage(fmt.Sprintf("answer %d", n))
	case 3:
		return protocol.Item{Type: protocol.ItemReasoning, Summary: fmt.Sprintf("thinking %d", n), EncryptedContent: []string{"", "enc"}[r.IntN(2)]}
	case 4:
		args := []string{`{"cmd":"ls"}`, `not json`, ``}[r.IntN(3)]
		return protocol.FunctionCall(id, "exec_command", args)
	case 5:
		return protocol.FunctionCallOutput(fmt.Sprintf("call_%d", n-1), fmt.Sprintf("output %d\n<tag>", n))
	case 6:
		return protocol.Item{Type: protocol.ItemMessage, Role: protocol.RoleDeveloper, Content: "dev note"}
	}
	return protocol.GroveNotice(fmt.Sprintf("notice %d", n))
}

func decoded(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("invalid JSON %s: %v", b, err)
	}
	return v
}

// Encoding with a PrefixCache, request after request of a growing
// history, gives the same request as encoding everything each time, on
// both wire APIs and with parameters omitted; a replaced history (a
// compaction) is noticed and re-encoded.
func TestPrefixCacheEncodesLikeTheWholeRequest(t *testing.T) {
	tools := []ToolSpec{{Name: "exec_command", Description: "run", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}}
	for _, wire := range []string{"chat", "responses"} {
		for seed := uint64(1); seed <= 40; seed++ {
			r := rand.New(rand.NewPCG(seed, 7))
			cl, err := New(ProviderConfig{BaseURL: "http://127.0.0.1:1/v1", WireAPI: wire})
			if err != nil {
				t.Fatal(err)
			}
			c := cl.(*openAIClient)
			omit := map[string]bool{}
			if seed%3 == 0 {
				omit["include"], omit["reasoning_content"], omit["stream_options"] = true, true, true
			}
			cache := NewPrefixCache()
			var items []protocol.Item
			for step := 0; step < 30; step++ {
				for k := r.IntN(4); k >= 0; k-- {
					items = append(items, randomItem(r, len(items)))
				}
				if step == 20 { // compaction: a shorter, different history
					items = []protocol.Item{protocol.UserMessage("kept"), protocol.GroveNotice("summary")}
				}
				req := Request{Model: "m", Instructions: "be <brief>", Items: items, Tools: tools, ReasoningEffort: "low", ParallelToolCalls: true, CacheKey: "thread-1"}
				if seed%5 == 0 { // a Task agent's modelConfig (seed 004)
					temp, topP := 0.1, 0.5
					req.Temperature, req.TopP = &temp, &topP
				}
				if seed%2 == 0 {
					req.OutputSchema = json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}}}`)
				}
				want, err := c.encode(req, omit)
				if err != nil {
					t.Fatal(err)
				}
				req.Prefix = cache
				got, err := c.encode(req, omit)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(decoded(t, got.bytes()), decoded(t, want.bytes())) {
					t.Fatalf("%s seed %d step %d: cached body\n%s\nwant\n%s", wire, seed, step, got.bytes(), want.bytes())
				}
			}
		}
	}
}
