package model_test

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/model/modeltest"
	"github.com/grovecli/grove/protocol"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const secret = "sk-test-SECRET-123456"

var wires = []string{"chat", "responses"}

// client returns a client for the mock server with fast retries.
func client(t testing.TB, s *modeltest.Server, wire string, edit ...func(*model.ProviderConfig)) model.Client {
	t.Helper()
	cfg := model.ProviderConfig{Name: "mock", BaseURL: s.URL(), APIKey: secret, WireAPI: wire, RetryBaseDelay: time.Millisecond, MaxRetryDelay: 20 * time.Millisecond, MaxRetries: new(3)}
	for _, e := range edit {
		e(&cfg)
	}
	c, err := model.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// collector records what onDelta received.
type collector struct {
	mu       sync.Mutex
	deltas   []model.Delta
	text     strings.Builder // text as a consumer honouring DeltaReset shows it
	reason   strings.Builder
	resets   int
	retries  []string
	warnings []string
}

func (c *collector) on(d model.Delta) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.deltas = append(c.deltas, d)
	switch d.Kind {
	case model.DeltaText:
		c.text.WriteString(d.Text)
	case model.DeltaReasoning:
		c.reason.WriteString(d.Text)
	case model.DeltaReset:
		c.resets++
		c.text.Reset()
		c.reason.Reset()
	case model.DeltaRetry:
		c.retries = append(c.retries, d.Text)
	case model.DeltaWarning:
		c.warnings = append(c.warnings, d.Text)
	}
}

// kinds lists the delta kinds in order, merging runs of one kind.
func (c *collector) kinds() []model.DeltaKind {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []model.DeltaKind
	for _, d := range c.deltas {
		if len(out) == 0 || out[len(out)-1] != d.Kind {
			out = append(out, d.Kind)
		}
	}
	return out
}

// req is a request with a tool round trip in its history.
func req() model.Request {
	return model.Request{
		Model: "test-model", Instructions: "be brief",
		Items: []protocol.Item{
			protocol.UserMessage("hi"),
			protocol.FunctionCall("call_0", "read_file", `{"path":"a"}`),
			protocol.FunctionCallOutput("call_0", "L1: x"),
		},
		Tools:             []model.ToolSpec{{Name: "read_file", Description: "read", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}},
		ParallelToolCalls: true,
	}
}

// roundTrip re-encodes v as generic JSON, for comparing with captured bodies.
func roundTrip(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
