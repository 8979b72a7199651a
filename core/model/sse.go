package model

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/openai/openai-go/v3/packages/ssestream"
)

// streamError is a failure of one attempt.
type streamError struct {
	status     int
	msg        string
	retryable  bool
	retryAfter time.Duration
}

func (e *streamError) Error() string { return e.msg }

// attempt is one request: it posts body and feeds every SSE event to
// handle. It returns nil only when the stream reached its terminal event.
func (c *openAIClient) attempt(parent context.Context, body map[string]any, handle func(typ string, data []byte) (done bool, err error)) error {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	payload, err := json.Marshal(body)
	if err != nil {
		return &streamError{msg: fmt.Sprintf("encode request: %v", err)}
	}
	req, err := c.newRequest(ctx, http.MethodPost, c.endpoint(), bytes.NewReader(payload))
	if err != nil {
		return &streamError{msg: err.Error()}
	}
	req.Header.Set("Accept", "text/event-stream")
	res, err := c.http.Do(req)
	if err != nil {
		if parent.Err() != nil {
			return parent.Err()
		}
		// Connection refused/reset, EOF before headers: transient.
		return &streamError{msg: redact(err.Error(), c.cfg.APIKey), retryable: true}
	}
	defer res.Body.Close()
	if res.StatusCode >= 400 {
		return httpError(res, c.cfg.APIKey)
	}
	// Idle watchdog: a stream that goes silent is cut and retried.
	activity := make(chan struct{}, 1)
	go func() {
		t := time.NewTimer(c.cfg.StreamIdleTimeout)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-activity:
				if !t.Stop() {
					<-t.C
				}
				t.Reset(c.cfg.StreamIdleTimeout)
			case <-t.C:
				cancel()
				return
			}
		}
	}()
	dec := ssestream.NewDecoder(res)
	if dec == nil {
		return &streamError{status: res.StatusCode, msg: "response is not an event stream", retryable: false}
	}
	defer dec.Close()
	for dec.Next() {
		select {
		case activity <- struct{}{}:
		default:
		}
		ev := dec.Event()
		done, err := handle(ev.Type, ev.Data)
		if err != nil {
			return err
		}
		if done {
			return nil
		}
	}
	if parent.Err() != nil {
		return parent.Err()
	}
	if ctx.Err() != nil {
		return &streamError{msg: fmt.Sprintf("stream idle for %s", c.cfg.StreamIdleTimeout), retryable: true}
	}
	if err := dec.Err(); err != nil {
		return &streamError{msg: fmt.Sprintf("stream dropped: %v", err), retryable: true}
	}
	return &streamError{msg: "stream ended before completion", retryable: true}
}

// streamErrorObject turns an `error` object inside the stream into an error.
func streamErrorObject(raw json.RawMessage) error {
	var e struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Code    any    `json:"code"`
	}
	_ = json.Unmarshal(raw, &e)
	if e.Message == "" {
		e.Message = string(raw)
	}
	code := fmt.Sprint(e.Code)
	retry := e.Type == "server_error" || code == "server_error" || code == "rate_limit_exceeded" || e.Type == "rate_limit_error" || code == "500" || code == "503"
	return &streamError{msg: "provider error in stream: " + e.Message, retryable: retry}
}

// httpError turns an error response into a streamError (retryable for
// 408, 409, 429 and 5xx, with the server's Retry-After).
func httpError(res *http.Response, key string) error {
	raw, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	var body struct {
		Error json.RawMessage `json:"error"`
	}
	msg := strings.TrimSpace(string(raw))
	if json.Unmarshal(raw, &body) == nil && len(body.Error) > 0 {
		var e struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(body.Error, &e) == nil && e.Message != "" {
			msg = e.Message
		} else {
			var s string
			if json.Unmarshal(body.Error, &s) == nil && s != "" {
				msg = s
			}
		}
	}
	if msg == "" {
		msg = http.StatusText(res.StatusCode)
	}
	if len(msg) > 500 {
		msg = msg[:500] + "…"
	}
	se := &streamError{status: res.StatusCode, msg: redact(msg, key), retryAfter: retryAfter(res.Header)}
	switch {
	case res.StatusCode == 408, res.StatusCode == 409, res.StatusCode == 429, res.StatusCode >= 500:
		se.retryable = true
	}
	return se
}
