package model

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
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
	var res *http.Response
	err := c.client.Post(ctx, c.endpoint(), body, &res)
	if err != nil {
		if parent.Err() != nil {
			return parent.Err()
		}
		return classify(err, c.cfg.APIKey)
	}
	defer res.Body.Close()
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
