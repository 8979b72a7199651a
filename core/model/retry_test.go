package model_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/model/modeltest"
	"github.com/grovecli/grove/core/testkit"
)

const answer = "The answer is forty-two." // 8 pieces of 3 bytes

// afterText is the DropAfterChunks value that cuts a stream of answer
// (ChunkSize 3) after n text pieces: chat sends a role chunk first,
// responses four events (created, in_progress, item and part added).
func afterText(wire string, n int) int {
	if wire == "chat" {
		return 1 + n
	}
	return 4 + n
}

func TestTransientFaultsAreRetriedWithoutDuplicates(t *testing.T) {
	for _, wire := range wires {
		for _, tc := range []struct {
			name   string
			fault  modeltest.Reply
			notice string // in the retry notice
		}{
			{"429 Retry-After seconds", modeltest.Reply{Status: 429, Header: map[string]string{"Retry-After": "0.01"}, Body: `{"error":{"message":"slow down"}}`}, "HTTP 429 from mock, retry 1/3 in 10ms"},
			{"429 retry-after-ms", modeltest.Reply{Status: 429, Header: map[string]string{"retry-after-ms": "15"}}, "HTTP 429 from mock, retry 1/3 in 15ms"},
			{"500", modeltest.Reply{Status: 500, Body: `{"error":{"message":"boom"}}`}, "HTTP 500 from mock, retry 1/3"},
			{"502 html", modeltest.Reply{Status: 502, Body: "<html>bad gateway</html>"}, "HTTP 502"},
			{"408", modeltest.Reply{Status: 408}, "HTTP 408"},
			{"409", modeltest.Reply{Status: 409}, "HTTP 409"},
			{"connection reset", modeltest.Reply{Reset: true}, "from mock, retry 1/3"},
			{"drop mid-stream", modeltest.Reply{Text: answer, ChunkSize: 3, DropAfterChunks: afterText(wire, 4)}, "stream dropped"},
			{"stream ends without its terminal event", modeltest.Reply{Text: answer, ChunkSize: 3, TruncateAfterChunks: afterText(wire, 5)}, "stream ended before the reply was complete from mock"},
			{"server error in stream", modeltest.Reply{Text: answer[:9], ChunkSize: 3, StreamError: "overloaded", StreamErrorType: "server_error"}, "overloaded"},
		} {
			t.Run(wire+"/"+tc.name, func(t *testing.T) {
				s := modeltest.NewServer(t)
				s.Enqueue(tc.fault, modeltest.Reply{Text: answer, ChunkSize: 3})
				var col collector
				resp, err := client(t, s, wire).Stream(context.Background(), req(), col.on)
				if err != nil {
					t.Fatal(err)
				}
				// What onDelta delivered, concatenated, is the answer once.
				var all strings.Builder
				for _, d := range col.deltas {
					if d.Kind == model.DeltaText {
						all.WriteString(d.Text)
					}
				}
				if resp.Text != answer || all.String() != answer || col.resets != 0 {
					t.Fatalf("text %q, delivered %q, %d resets", resp.Text, all.String(), col.resets)
				}
				if len(col.retries) != 1 || !strings.Contains(col.retries[0], tc.notice) || strings.Contains(col.retries[0], secret) {
					t.Fatalf("retry notices %q, want one with %q", col.retries, tc.notice)
				}
				if len(s.Requests()) != 2 {
					t.Fatalf("%d requests", len(s.Requests()))
				}
				// When text was shown before the fault, the retry
				// continued it rather than starting over.
				if tc.fault.Text != "" {
					if want := []model.DeltaKind{model.DeltaText, model.DeltaRetry, model.DeltaText}; !reflect.DeepEqual(col.kinds(), want) {
						t.Fatalf("delta kinds %v, want %v", col.kinds(), want)
					}
				}
			})
		}
	}
}

// A retry that says something else voids what was shown: one reset, then
// the new text from its start; one that ends short of what was shown is
// cut back the same way.
func TestRetryThatDivergesResets(t *testing.T) {
	for _, wire := range wires {
		for _, tc := range []struct {
			name, first, second string
		}{
			{"diverges", "first version of the text", "second take"},
			{"shorter", answer, "The answer"},
		} {
			t.Run(wire+"/"+tc.name, func(t *testing.T) {
				s := modeltest.NewServer(t)
				s.Enqueue(modeltest.Reply{Text: tc.first, ChunkSize: 3, DropAfterChunks: afterText(wire, 6)}, modeltest.Reply{Text: tc.second, ChunkSize: 3})
				var col collector
				resp, err := client(t, s, wire).Stream(context.Background(), req(), col.on)
				if err != nil {
					t.Fatal(err)
				}
				if col.resets != 1 || col.text.String() != tc.second || resp.Text != tc.second {
					t.Fatalf("%d resets, shown %q, text %q", col.resets, col.text.String(), resp.Text)
				}
			})
		}
	}
}

func TestRetriesExhausted(t *testing.T) {
	for _, wire := range wires {
		t.Run(wire, func(t *testing.T) {
			s := modeltest.NewServer(t)
			for range 4 {
				s.Enqueue(modeltest.Reply{Status: 503, Body: `{"error":{"message":"overloaded, key ` + secret + `"}}`})
			}
			var col collector
			_, err := client(t, s, wire).Stream(context.Background(), req(), col.on)
			var apiErr *model.APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("want *APIError, got %T %v", err, err)
			}
			endpoint := map[string]string{"chat": "/chat/completions", "responses": "/responses"}[wire]
			if apiErr.StatusCode != 503 || apiErr.Attempts != 4 || apiErr.Provider != "mock" || apiErr.URL != s.URL()+endpoint {
				t.Fatalf("%+v", apiErr)
			}
			msg := err.Error()
			if !contains(msg, "503", "mock", s.URL()+endpoint, "overloaded") || strings.Contains(msg, secret) {
				t.Fatalf("message %q", msg)
			}
			if len(col.retries) != 3 || len(s.Requests()) != 4 {
				t.Fatalf("%d notices, %d requests", len(col.retries), len(s.Requests()))
			}
		})
	}
}

func TestPermanentErrorsAreNotRetried(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reply modeltest.Reply
		want  []string
	}{
		{"400", modeltest.Reply{Status: 400, Body: `{"error":{"message":"bad tool schema","type":"invalid_request_error"}}`}, []string{"HTTP 400", "bad tool schema"}},
		{"401 echoing the key", modeltest.Reply{Status: 401, Body: `{"error":{"message":"Incorrect API key provided: ` + secret + `"}}`}, []string{"HTTP 401", "Incorrect API key"}},
		{"404 plain", modeltest.Reply{Status: 404, Body: `{"error":"model 'x' not found"}`}, []string{"HTTP 404", "model 'x' not found"}},
		{"422 message", modeltest.Reply{Status: 422, Body: `{"object":"error","message":"bad request"}`}, []string{"HTTP 422", "bad request"}},
		{"error in stream", modeltest.Reply{Text: "partial", StreamError: "context length exceeded"}, []string{"context length exceeded"}},
	} {
		for _, wire := range wires {
			t.Run(wire+"/"+tc.name, func(t *testing.T) {
				s := modeltest.NewServer(t)
				s.Enqueue(tc.reply)
				var col collector
				resp, err := client(t, s, wire).Stream(context.Background(), req(), col.on)
				var apiErr *model.APIError
				if !errors.As(err, &apiErr) || apiErr.Attempts != 1 || !contains(err.Error(), tc.want...) || strings.Contains(err.Error(), secret) {
					t.Fatalf("error %v", err)
				}
				if resp.Text != "" || len(s.Requests()) != 1 || len(col.retries) != 0 {
					t.Fatalf("text %q, %d requests, notices %v", resp.Text, len(s.Requests()), col.retries)
				}
			})
		}
	}
}

func TestConnectionRefusedExhausts(t *testing.T) {
	s := modeltest.Start()
	base := s.URL()
	s.Close()
	c, err := model.New(model.ProviderConfig{Name: "gone", BaseURL: base, APIKey: secret, RetryBaseDelay: time.Millisecond, MaxRetries: new(2)})
	if err != nil {
		t.Fatal(err)
	}
	var col collector
	_, err = c.Stream(context.Background(), req(), col.on)
	var apiErr *model.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 0 || apiErr.Attempts != 3 || !contains(err.Error(), "gone", "refused", base) {
		t.Fatalf("error %v", err)
	}
	if len(col.retries) != 2 || !strings.Contains(col.retries[1], "retry 2/2") {
		t.Fatalf("notices %q", col.retries)
	}
}

// request_max_retries = 0 means one attempt (it used to mean the default
// of 4 retries); a negative count is the same as 0.
func TestZeroMaxRetriesMeansOneAttempt(t *testing.T) {
	for _, n := range []int{0, -1} {
		s := modeltest.NewServer(t)
		s.Enqueue(modeltest.Reply{Status: 500}, modeltest.Reply{Text: "never"})
		_, err := client(t, s, "chat", func(c *model.ProviderConfig) { c.MaxRetries = new(n) }).Stream(context.Background(), req(), nil)
		if err == nil || len(s.Requests()) != 1 {
			t.Fatalf("max %d: %v, %d requests", n, err, len(s.Requests()))
		}
	}
}

// A stream that goes silent is cut after StreamIdleTimeout and retried.
func TestIdleStreamIsRetried(t *testing.T) {
	for _, wire := range wires {
		t.Run(wire, func(t *testing.T) {
			s := modeltest.NewServer(t)
			s.Enqueue(modeltest.Reply{Text: answer, ChunkSize: 3, ChunkDelay: time.Hour}, modeltest.Reply{Text: answer, ChunkSize: 3})
			var col collector
			resp, err := client(t, s, wire, func(c *model.ProviderConfig) { c.StreamIdleTimeout = 300 * time.Millisecond }).Stream(context.Background(), req(), col.on)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Text != answer || col.text.String() != answer || len(col.retries) != 1 || !strings.Contains(col.retries[0], "idle") {
				t.Fatalf("text %q, notices %q", resp.Text, col.retries)
			}
		})
	}
}

// Cancelling the context ends Stream with ctx.Err() wherever it is: before
// the reply's headers, in the middle of a slow stream, or in a backoff.
func TestCancelEndsStream(t *testing.T) {
	for _, wire := range wires {
		for _, tc := range []struct {
			name  string
			reply func(release chan struct{}) modeltest.Reply
			// cancelAt is when to cancel: the request arrived, the reply's
			// headers arrived, or a retry was announced.
			cancelAt string
		}{
			{"before headers", func(release chan struct{}) modeltest.Reply { <-release; return modeltest.Reply{Text: "late"} }, "request"},
			{"slow stream", func(chan struct{}) modeltest.Reply {
				return modeltest.Reply{Text: answer, ChunkSize: 3, ChunkDelay: time.Hour}
			}, "headers"},
			{"backoff", func(chan struct{}) modeltest.Reply {
				return modeltest.Reply{Status: 503, Header: map[string]string{"Retry-After": "3600"}}
			}, "retry"},
		} {
			t.Run(wire+"/"+tc.name, func(t *testing.T) {
				s := modeltest.NewServer(t)
				release := make(chan struct{})
				defer close(release)
				s.Handle(func(modeltest.CapturedRequest) modeltest.Reply { return tc.reply(release) })
				headers := make(chan struct{}, 8)
				tr := &http.Transport{}
				defer tr.CloseIdleConnections()
				hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
					res, err := tr.RoundTrip(r)
					headers <- struct{}{}
					return res, err
				})}
				c := client(t, s, wire, func(c *model.ProviderConfig) { c.MaxRetryDelay = time.Hour; c.HTTPClient = hc })
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				retried := make(chan struct{}, 8)
				done := make(chan error, 1)
				go func() {
					_, err := c.Stream(ctx, req(), func(d model.Delta) {
						if d.Kind == model.DeltaRetry {
							retried <- struct{}{}
						}
					})
					done <- err
				}()
				switch tc.cancelAt {
				case "request":
					testkit.Eventually(t, "the first request", func() bool { return len(s.Requests()) > 0 })
				case "headers":
					<-headers
				case "retry":
					<-retried
				}
				cancel()
				select {
				case err := <-done:
					if !errors.Is(err, context.Canceled) {
						t.Fatalf("want context.Canceled, got %v", err)
					}
				case <-time.After(30 * time.Second): // liveness bound, not a timing assert
					t.Fatal("Stream did not return after cancel")
				}
			})
		}
	}
}

func TestCancelledContextSendsNothing(t *testing.T) {
	s := modeltest.NewServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := client(t, s, "chat").Stream(ctx, req(), nil); !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	if len(s.Requests()) != 0 {
		t.Fatal("request sent after cancel")
	}
}

func ExampleAPIError() {
	err := &model.APIError{Provider: "openai", URL: "https://api.openai.com/v1/responses", StatusCode: 429, Message: "Rate limit reached", Attempts: 5}
	fmt.Println(err)
	// Output: model provider openai (https://api.openai.com/v1/responses): HTTP 429 after 5 attempt(s): Rate limit reached
}
