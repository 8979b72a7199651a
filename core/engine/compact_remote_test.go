package engine

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/model/modeltest"
	"github.com/grovecli/grove/protocol"
)

// inputShape lists a Responses request's input as "<role>:<text>" for
// messages and "compaction:<encrypted_content>" for compaction items.
func inputShape(req modeltest.CapturedRequest) string {
	input, _ := req.Body["input"].([]any)
	texts := inputTexts(req)
	var out []string
	for i, raw := range input {
		it, _ := raw.(map[string]any)
		switch it["type"] {
		case "compaction":
			out = append(out, fmt.Sprintf("compaction:%v", it["encrypted_content"]))
		case "message":
			out = append(out, fmt.Sprintf("%v:%s", it["role"], texts[i]))
		default:
			out = append(out, fmt.Sprint(it["type"]))
		}
	}
	return strings.Join(out, "|")
}

// remoteProvider is compactingProvider as the built-in OpenAI provider,
// which Codex (and grove) compact through POST /responses/compact.
func remoteProvider(t *testing.T) (*compactingProvider, model.Client) {
	p := newCompactingProvider(t)
	c, err := model.New(model.ProviderConfig{Name: "openai", BaseURL: p.srv.URL(), WireAPI: "responses", RetryBaseDelay: 1})
	if err != nil {
		t.Fatal(err)
	}
	return p, c
}

func requestsTo(reqs []modeltest.CapturedRequest, path string) []modeltest.CapturedRequest {
	var out []modeltest.CapturedRequest
	for _, r := range reqs {
		if r.Path == path {
			out = append(out, r)
		}
	}
	return out
}

// /compact with the OpenAI provider calls the compact endpoint instead of
// asking the model for a summary; the next request carries the endpoint's
// output (the user messages and its compaction item), and so does a
// resumed session.
func TestRemoteCompactionUsesTheCompactEndpoint(t *testing.T) {
	p, client := remoteProvider(t)
	env := newEnv(t, nil, func(o *Options) { o.Client = client })
	env.send("remember the secret word: pineapple")
	env.rootFinal(1)
	env.send("second message")
	env.rootFinal(2)
	if err := env.e.Submit(protocol.Op{Type: protocol.OpCompact, ThreadID: env.root}); err != nil {
		t.Fatal(err)
	}
	ev := env.waitFor("compaction", func(ev protocol.Event) bool { return ev.Type == protocol.EventContextCompacted })
	if ev.Compaction.Trigger != protocol.CompactManual || ev.Compaction.TokensAfter <= 0 {
		t.Fatalf("compaction %+v", ev.Compaction)
	}
	env.rootFinal(3)
	compacts := requestsTo(p.srv.Requests(), "/v1/responses/compact")
	if len(compacts) != 1 {
		t.Fatalf("%d compact calls, want 1", len(compacts))
	}
	c := compacts[0]
	if c.Body["model"] == nil || c.Body["instructions"] == "" || !strings.HasPrefix(inputShape(c), "user:remember the secret word: pineapple|assistant:ok ") {
		t.Fatalf("compact request %s", c.Raw)
	}
	for _, r := range requestsTo(p.srv.Requests(), "/v1/responses") {
		if isCompactionRequest(r) {
			t.Fatal("the model was asked for a summary although the provider compacts")
		}
	}
	want := "user:remember the secret word: pineapple|user:second message|compaction:modeltest-compaction:1:4|user:what now?"
	env.send("what now?")
	env.rootFinal(4)
	reqs := requestsTo(p.srv.Requests(), "/v1/responses")
	if got := inputShape(reqs[len(reqs)-1]); got != want {
		t.Fatalf("request after compaction\n%s\nwant\n%s", got, want)
	}
	if err := env.e.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, env2 := env.resumeInNewEngine()
	env2.send("what now?")
	env2.waitFor("the resumed turn's reply", func(ev protocol.Event) bool { return ev.Type == protocol.EventMessage })
	reqs = requestsTo(p.srv.Requests(), "/v1/responses")
	if got := inputShape(reqs[len(reqs)-1]); !strings.HasPrefix(got, "user:remember the secret word: pineapple|user:second message|compaction:modeltest-compaction:1:4|") {
		t.Fatalf("resumed request %s", got)
	}
}

// A compact endpoint that fails is a warning: the compaction still
// happens, with the model's summary.
func TestRemoteCompactionFailureFallsBackToTheSummary(t *testing.T) {
	p, client := remoteProvider(t)
	p.srv.SetCompactStatus(http.StatusNotFound)
	env := newEnv(t, nil, func(o *Options) { o.Client = client })
	env.send("first")
	env.rootFinal(1)
	if err := env.e.Submit(protocol.Op{Type: protocol.OpCompact, ThreadID: env.root}); err != nil {
		t.Fatal(err)
	}
	warn := env.waitFor("the warning", func(ev protocol.Event) bool {
		return ev.Type == protocol.EventWarning && strings.Contains(ev.Message, "remote compaction failed")
	})
	if !strings.Contains(warn.Message, "404") {
		t.Fatalf("warning %q does not say why", warn.Message)
	}
	env.waitFor("compaction", func(ev protocol.Event) bool { return ev.Type == protocol.EventContextCompacted })
	env.rootFinal(2)
	env.send("next")
	env.rootFinal(3)
	reqs := requestsTo(p.srv.Requests(), "/v1/responses")
	if got := inputShape(reqs[len(reqs)-1]); got != "user:first|user:"+compactSummaryPrefix+"\nSUMMARY-1|user:next" {
		t.Fatalf("request after the fallback %q", got)
	}
}

// Other providers (and chat ones) never call the endpoint.
func TestOnlyOpenAIAndAzureCompactRemotely(t *testing.T) {
	for _, tc := range []struct {
		name, base, wire string
		want             bool
	}{
		{"openai", "https://api.openai.com/v1", "responses", true},
		{"OpenAI", "http://127.0.0.1:1/v1", "responses", true},
		{"azure", "http://127.0.0.1:1/v1", "responses", true},
		{"work", "https://my-res.openai.azure.com/openai", "responses", true},
		{"openai", "http://127.0.0.1:1/v1", "chat", false},
		{"local", "http://127.0.0.1:1/v1", "responses", false},
	} {
		c, err := model.New(model.ProviderConfig{Name: tc.name, BaseURL: tc.base, WireAPI: tc.wire})
		if err != nil {
			t.Fatal(err)
		}
		if got := c.(model.Compactor).CompactsRemotely(); got != tc.want {
			t.Errorf("%s %s %s: compacts remotely %v, want %v", tc.name, tc.base, tc.wire, got, tc.want)
		}
	}
}
