package modeltest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/grovecli/grove/core/model/modeltest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func post(t *testing.T, ctx context.Context, url, body string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// The streams carry what real servers send: every chat chunk is a
// chat.completion.chunk, usage only when asked for; every Responses event
// names its type and has a sequence number, ending in response.completed.
func TestEventShapes(t *testing.T) {
	defer http.DefaultClient.CloseIdleConnections()
	s := modeltest.NewServer(t)
	reply := modeltest.Reply{Text: "hi there", ToolCalls: []modeltest.ToolCall{{ID: "c", Name: "n", Arguments: `{"a":1}`}}}
	s.Enqueue(reply, reply, reply)

	_, body := post(t, context.Background(), s.URL()+"/chat/completions", `{"model":"m1","stream":true}`)
	if strings.Contains(body, `"usage"`) || !strings.HasSuffix(body, "data: [DONE]\n\n") || !strings.Contains(body, `"model":"m1"`) {
		t.Fatalf("chat without include_usage:\n%s", body)
	}
	_, body = post(t, context.Background(), s.URL()+"/chat/completions", `{"model":"m1","stream_options":{"include_usage":true}}`)
	if !strings.Contains(body, `"usage"`) || !strings.Contains(body, `"finish_reason":"tool_calls"`) {
		t.Fatalf("chat with usage:\n%s", body)
	}
	_, body = post(t, context.Background(), s.URL()+"/responses", `{"model":"m2"}`)
	events := strings.Split(strings.TrimSpace(body), "\n\n")
	for i, ev := range events {
		name, data, _ := strings.Cut(ev, "\n")
		var v map[string]any
		if err := json.Unmarshal([]byte(strings.TrimPrefix(data, "data: ")), &v); err != nil || "event: "+v["type"].(string) != name || v["sequence_number"] != float64(i) {
			t.Fatalf("event %d: %q (%v)", i, ev, err)
		}
	}
	if !strings.HasPrefix(events[len(events)-1], "event: response.completed") {
		t.Fatalf("last event %q", events[len(events)-1])
	}
	if got := s.Requests(); len(got) != 3 || got[2].Body["model"] != "m2" || got[2].Path != "/v1/responses" || got[2].Received.IsZero() {
		t.Fatalf("captured %+v", got)
	}
}

func TestRoutesAndDefaults(t *testing.T) {
	defer http.DefaultClient.CloseIdleConnections()
	s := modeltest.NewServer(t)
	res, _ := post(t, context.Background(), s.URL()+"/completions", `{}`)
	if res.StatusCode != 404 {
		t.Fatalf("unknown route: %d", res.StatusCode)
	}
	res, body := post(t, context.Background(), s.URL()+"/chat/completions", `{}`)
	if res.StatusCode != 500 || !strings.Contains(body, "no scripted reply left") {
		t.Fatalf("empty queue: %d %s", res.StatusCode, body)
	}
	s.Enqueue(modeltest.Reply{Status: 429, Header: map[string]string{"Retry-After": "7"}})
	res, body = post(t, context.Background(), s.URL()+"/responses", `{}`)
	if res.StatusCode != 429 || res.Header.Get("Retry-After") != "7" || !strings.Contains(body, "Too Many Requests") {
		t.Fatalf("status reply: %d %v %s", res.StatusCode, res.Header, body)
	}
	get, err := http.Get(s.URL() + "/models")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(get.Body)
	get.Body.Close()
	if !bytes.Contains(b, []byte(`"id":"test-model"`)) || s.ModelsRequests() != 1 {
		t.Fatalf("models: %s", b)
	}
}

// Handlers run concurrently, and Close ends slow streams still open.
func TestConcurrentAndCloseWithSlowStreams(t *testing.T) {
	defer http.DefaultClient.CloseIdleConnections()
	s := modeltest.Start()
	var started sync.WaitGroup
	started.Add(8)
	s.Handle(func(modeltest.CapturedRequest) modeltest.Reply {
		started.Done()
		started.Wait() // all eight are in handlers at once
		return modeltest.Reply{Text: "slow text", ChunkSize: 1, ChunkDelay: time.Hour}
	})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			res, err := http.Post(s.URL()+"/chat/completions", "application/json", strings.NewReader(`{}`))
			if err == nil {
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
			}
		})
	}
	started.Wait()
	s.Close() // returns although every stream would take hours
	wg.Wait()
	s.Close()
}
