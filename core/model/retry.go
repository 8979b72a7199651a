package model

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// retryAfter reads Retry-After (seconds or HTTP date) and retry-after-ms.
func retryAfter(h http.Header) time.Duration {
	if v := h.Get("retry-after-ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		return time.Until(t)
	}
	return 0
}

func (c *openAIClient) backoff(n int, se *streamError) time.Duration {
	if se != nil && se.retryAfter > 0 {
		return min(se.retryAfter, c.cfg.MaxRetryDelay)
	}
	d := c.cfg.RetryBaseDelay << n
	d += time.Duration(rand.Int64N(int64(d)/4 + 1))
	return min(d, c.cfg.MaxRetryDelay)
}

// dedup forwards streamed text across retries without repeating it: while
// a new attempt re-sends text already shown it is suppressed; if it
// diverges, one DeltaReset is sent and the new text starts over.
type dedup struct {
	onDelta func(Delta)
	shown   strings.Builder // text delivered during this Stream call
	cur     strings.Builder // text of the current attempt
	synced  bool            // cur == shown: forward directly
}

func (d *dedup) newAttempt() {
	d.cur.Reset()
	d.synced = d.shown.Len() == 0
}

func (d *dedup) text(s string) {
	d.cur.WriteString(s)
	if d.onDelta == nil || s == "" {
		return
	}
	if d.synced {
		d.onDelta(Delta{Kind: DeltaText, Text: s})
		d.shown.WriteString(s)
		return
	}
	sh, cu := d.shown.String(), d.cur.String()
	if len(cu) <= len(sh) && strings.HasPrefix(sh, cu) {
		return // replaying what was already shown
	}
	if strings.HasPrefix(cu, sh) {
		rest := cu[len(sh):]
		d.onDelta(Delta{Kind: DeltaText, Text: rest})
		d.shown.WriteString(rest)
		d.synced = true
		return
	}
	d.onDelta(Delta{Kind: DeltaReset})
	d.shown.Reset()
	d.shown.WriteString(cu)
	d.onDelta(Delta{Kind: DeltaText, Text: cu})
	d.synced = true
}

// Stream implements Client with bounded retries.
func (c *openAIClient) Stream(ctx context.Context, req Request, onDelta func(Delta)) (Response, error) {
	body := c.buildBody(req)
	dd := &dedup{onDelta: onDelta}
	url := c.cfg.BaseURL + "/" + c.endpoint()
	var last *streamError
	for n := 0; ; n++ {
		dd.newAttempt()
		resp, err := c.streamOnce(ctx, body, dd, onDelta)
		if err == nil {
			return resp, nil
		}
		if ctx.Err() != nil {
			return Response{}, ctx.Err()
		}
		var se *streamError
		if !errors.As(err, &se) {
			se = &streamError{msg: err.Error()}
		}
		last = se
		if !se.retryable || n >= c.cfg.MaxRetries {
			return Response{}, &APIError{Provider: c.cfg.Name, URL: url, StatusCode: last.status, Message: last.msg, Attempts: n + 1}
		}
		wait := c.backoff(n, se)
		if onDelta != nil {
			cause := se.msg
			if se.status != 0 {
				cause = fmt.Sprintf("HTTP %d", se.status)
			}
			onDelta(Delta{Kind: DeltaRetry, Text: fmt.Sprintf("%s from %s, retry %d/%d in %s", cause, c.cfg.Name, n+1, c.cfg.MaxRetries, wait.Round(10*time.Millisecond))})
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return Response{}, ctx.Err()
		case <-t.C:
		}
	}
}

func (c *openAIClient) buildBody(req Request) map[string]any {
	if c.cfg.WireAPI == "responses" {
		return responsesBody(req)
	}
	return chatBody(req)
}

func (c *openAIClient) streamOnce(ctx context.Context, body map[string]any, dd *dedup, onDelta func(Delta)) (Response, error) {
	if c.cfg.WireAPI == "responses" {
		return c.streamResponses(ctx, body, dd, onDelta)
	}
	return c.streamChat(ctx, body, dd, onDelta)
}
