package model

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// seedFixtures adds every recorded payload of the given wire as a seed.
func seedFixtures(f *testing.F, prefix string) {
	files, _ := filepath.Glob(filepath.Join("testdata", "fixtures", prefix+"*.jsonl"))
	for _, name := range files {
		raw, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		for _, line := range strings.Split(string(raw), "\n") {
			if line != "" {
				f.Add(line)
			}
		}
	}
}

// Provider bytes are untrusted: no event may panic an assembler, and what
// it keeps stays within the cap.
func FuzzChatAssembler(f *testing.F) {
	seedFixtures(f, "chat-")
	f.Add(`{"choices":[{"delta":{"content":[{"type":"thinking","thinking":[{"text":"x"}]}],"tool_calls":[{"id":"a","function":{"name":"n","arguments":{"k":1}}}]}}]}`)
	f.Fuzz(func(t *testing.T, data string) {
		d := &delivery{limit: 64}
		a := newChatAssembler(d)
		for range 2 {
			_, _ = a.event("", []byte(data))
		}
		r := a.response()
		if len(r.Text) > 64 || len(r.Reasoning) > 64 {
			t.Fatalf("cap exceeded: %d/%d", len(r.Text), len(r.Reasoning))
		}
		for _, c := range r.ToolCalls {
			if len(c.Arguments) > 64 {
				t.Fatalf("arguments over the cap: %d", len(c.Arguments))
			}
		}
	})
}

func FuzzResponsesAssembler(f *testing.F) {
	seedFixtures(f, "responses-")
	f.Fuzz(func(t *testing.T, data string) {
		d := &delivery{limit: 64}
		a := newResponsesAssembler(d)
		for range 2 {
			_, _ = a.event("", []byte(data))
		}
		_ = a.whole([]byte(data))
		r := a.response()
		if len(r.Text) > 64 || len(r.Reasoning) > 64 {
			t.Fatalf("cap exceeded: %d/%d", len(r.Text), len(r.Reasoning))
		}
	})
}
