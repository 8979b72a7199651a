package model

import (
	"net/http"
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		header map[string]string
		want   time.Duration
	}{
		{nil, 0},
		{map[string]string{"Retry-After": "2"}, 2 * time.Second},
		{map[string]string{"Retry-After": "0.5"}, 500 * time.Millisecond},
		{map[string]string{"Retry-After": " 3 "}, 3 * time.Second},
		{map[string]string{"Retry-After": "-1"}, 0},
		{map[string]string{"Retry-After": "soon"}, 0},
		{map[string]string{"Retry-After": now.Add(90 * time.Second).Format(http.TimeFormat)}, 90 * time.Second},
		{map[string]string{"Retry-After": now.Add(-time.Minute).Format(http.TimeFormat)}, 0},
		{map[string]string{"retry-after-ms": "250"}, 250 * time.Millisecond},
		{map[string]string{"retry-after-ms": "250", "Retry-After": "9"}, 250 * time.Millisecond},
		{map[string]string{"retry-after-ms": "x", "Retry-After": "9"}, 9 * time.Second},
	} {
		h := http.Header{}
		for k, v := range tc.header {
			h.Set(k, v)
		}
		if got := retryAfter(h, now); got != tc.want {
			t.Errorf("%v: got %v, want %v", tc.header, got, tc.want)
		}
	}
}

func TestBackoff(t *testing.T) {
	c := &openAIClient{cfg: ProviderConfig{RetryBaseDelay: 100 * time.Millisecond, MaxRetryDelay: 2 * time.Second}}
	for n := 1; n <= 4; n++ {
		base := 100 * time.Millisecond << (n - 1)
		for range 50 {
			if d := c.backoff(n, 0); d < base*3/4 || d > base*5/4 {
				t.Fatalf("retry %d: %v outside %v±25%%", n, d, base)
			}
		}
	}
	for _, n := range []int{6, 30, 100, 1 << 20} {
		if d := c.backoff(n, 0); d <= 0 || d > 2*time.Second {
			t.Fatalf("retry %d: %v not capped", n, d)
		}
	}
	if d := c.backoff(1, 700*time.Millisecond); d != 700*time.Millisecond {
		t.Fatalf("Retry-After not honoured: %v", d)
	}
	if d := c.backoff(1, time.Hour); d != 2*time.Second {
		t.Fatalf("Retry-After not capped: %v", d)
	}
}

func TestStreamErrorObjectClassification(t *testing.T) {
	for _, tc := range []struct {
		raw   string
		retry bool
		msg   string
	}{
		{`{"message":"The server had an error","type":"server_error"}`, true, "The server had an error"},
		{`{"code":"rate_limit_exceeded","message":"Rate limit reached"}`, true, "Rate limit reached"},
		{`{"code":502,"message":"upstream"}`, true, "upstream"},
		{`{"type":"overloaded_error","message":"Overloaded"}`, true, "Overloaded"},
		{`{"code":"context_length_exceeded","message":"too long","param":"input"}`, false, "too long"},
		{`{"type":"invalid_request_error","message":"bad"}`, false, "bad"},
		{`"plain text"`, false, "plain text"},
		{`{"unexpected":true}`, false, `{"unexpected":true}`},
	} {
		err := streamErrorObject([]byte(tc.raw)).(*streamError)
		if err.retryable != tc.retry || err.msg != "provider error in stream: "+tc.msg {
			t.Errorf("%s: retryable %v msg %q", tc.raw, err.retryable, err.msg)
		}
	}
}
