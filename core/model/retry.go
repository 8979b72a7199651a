package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/grovecli/grove/protocol"
)

// Stream implements Client. Transient faults (408/409/429/5xx, resets,
// drops, timeouts, retryable errors inside the stream) are retried up to
// MaxRetries times with capped exponential backoff, each announced through
// onDelta(DeltaRetry); streamed output is never repeated (see delivery).
// Deterministic failures (other 4xx, unreadable replies) are not retried,
// except that a 400 naming a parameter grove can leave out is retried once
// without it, and that parameter stays out for the rest of the process.
func (c *openAIClient) Stream(ctx context.Context, req Request, onDelta func(Delta)) (Response, error) {
	if err := ctx.Err(); err != nil {
		return Response{}, err
	}
	plan := c.newStreamPlan(req)
	payload, err := plan.encode()
	if err != nil {
		return Response{}, err
	}
	warn := func(msg string) {
		if onDelta != nil {
			onDelta(Delta{Kind: DeltaWarning, Text: msg})
		}
	}
	out := &delivery{onDelta: onDelta, limit: c.cfg.MaxMessageBytes}
	streamRetries := 0
	for attempts, retries := 1, 0; ; attempts++ {
		out.newAttempt()
		asm := c.newAssembler(out)
		err := c.attempt(ctx, payload, req.Headers, asm)
		if err == nil {
			for _, w := range out.finish() {
				warn(w)
			}
			resp := asm.response()
			if c.chains(req) {
				req.Prefix.setChain(resp.ResponseID, req.Items, replyItems(resp))
			}
			if resp.Incomplete != "" {
				warn(fmt.Sprintf("reply from %s is incomplete: %s", c.cfg.Name, resp.Incomplete))
			}
			return resp, nil
		}
		if ctx.Err() != nil {
			return Response{}, ctx.Err()
		}
		var se *streamError
		if !errors.As(err, &se) {
			se = &streamError{msg: redact(err.Error(), c.cfg.APIKey)}
		}
		if msg, again := plan.adjust(se); again {
			warn(msg)
			if payload, err = plan.encode(); err != nil {
				return Response{}, err
			}
			continue
		}
		// Codex counts the two kinds apart: request_max_retries for
		// requests that failed before a response started, and
		// stream_max_retries for streams that broke after.
		count, limit := &retries, c.retries
		if se.stream {
			count, limit = &streamRetries, c.streamRetries
		}
		if !se.retryable || *count >= limit {
			return Response{}, &APIError{Provider: c.cfg.Name, URL: c.displayURL(), StatusCode: se.status, Message: se.msg, Attempts: attempts, ContextWindowExceeded: se.contextExceeded}
		}
		*count++
		wait := c.backoff(*count, se.retryAfter)
		if onDelta != nil {
			onDelta(Delta{Kind: DeltaRetry, Text: fmt.Sprintf("%s from %s, retry %d/%d in %s", se.cause(), c.cfg.Name, *count, limit, roundDelay(wait))})
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

// streamPlan is what one Stream call sends: the request, the parameters
// left out, and the stored response it continues (store_responses).
type streamPlan struct {
	c       *openAIClient
	req     Request
	omit    map[string]bool
	prev    string // the response continued, when chained
	start   int    // the first item sent, when chained
	chained bool
}

func (c *openAIClient) newStreamPlan(req Request) *streamPlan {
	p := &streamPlan{c: c, req: req, omit: c.omitted()}
	if c.chains(req) {
		p.prev, p.start, p.chained = req.Prefix.chainStart(req.Items)
	}
	return p
}

func (p *streamPlan) encode() (reqBody, error) {
	if p.chained {
		return p.c.encodeChained(p.req, p.omit, p.prev, p.start)
	}
	return p.c.encode(p.req, p.omit)
}

// adjust changes the plan after a deterministic refusal grove can work
// around, once each; it returns the warning to show and whether to send
// the request again.
func (p *streamPlan) adjust(se *streamError) (string, bool) {
	c := p.c
	if p.chained && (se.previousMissing || se.param == "previous_response_id") {
		// Never a dead session: the whole history goes, once.
		if !se.previousMissing {
			c.noChain.Store(true) // the provider does not take the parameter at all
		}
		p.req.Prefix.setChain("", nil, 0)
		p.chained = false
		return fmt.Sprintf("%s does not have the previous response %s (%s); sending the whole conversation", c.cfg.Name, p.prev, se.msg), true
	}
	if prm := se.param; (se.status == http.StatusBadRequest || se.status == http.StatusUnprocessableEntity) && omittable[prm] && !p.omit[prm] && c.refuse(prm) {
		p.omit = c.omitted()
		return fmt.Sprintf("%s rejected the parameter %s (%s); sending requests without it from now on", c.cfg.Name, prm, se.msg), true
	}
	// Encrypted reasoning from another model (a resumed session run with
	// a different -m) cannot be verified: this call goes without it.
	if se.status == http.StatusBadRequest && strings.Contains(strings.ToLower(se.msg), "encrypted content") && !p.omit[noReasoningReplay] && replaysReasoning(p.req) {
		p.omit[noReasoningReplay] = true
		return fmt.Sprintf("%s could not use the reasoning kept from earlier replies (%s); sending this request without it", c.cfg.Name, se.msg), true
	}
	return "", false
}

// noReasoningReplay is an internal omit key: leave reasoning items out of
// this request's input.
const noReasoningReplay = "reasoning replay"

// replaysReasoning reports whether req carries reasoning to replay.
func replaysReasoning(req Request) bool {
	for _, it := range req.Items {
		if it.Type == protocol.ItemReasoning && it.EncryptedContent != "" {
			return true
		}
	}
	return false
}

// displayURL is the stream URL as shown in errors.
func (c *openAIClient) displayURL() string { return withoutQuery(c.streamURL) }

// withoutQuery drops a URL's query: query_params may carry a credential.
func withoutQuery(u string) string {
	u, _, _ = strings.Cut(u, "?")
	return u
}

// encode builds the request body for the configured wire API once per
// Stream call; every attempt resends the same bytes.
func (c *openAIClient) encode(req Request, omit map[string]bool) (reqBody, error) {
	if req.Prefix != nil {
		return c.encodeCached(req, omit)
	}
	var body any
	var err error
	if c.cfg.WireAPI == "responses" {
		var rb *responsesRequest
		if rb, err = responsesBody(req, omit); rb != nil {
			rb.Store = c.cfg.StoreResponses
		}
		body = rb
	} else {
		body, err = chatBody(req, omit)
	}
	if err != nil {
		return nil, fmt.Errorf("model provider %s: build request: %w", c.cfg.Name, err)
	}
	payload, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("model provider %s: encode request: %w", c.cfg.Name, err)
	}
	return reqBody{payload}, nil
}

func (c *openAIClient) newAssembler(out *delivery) assembler {
	if c.cfg.WireAPI == "responses" {
		return newResponsesAssembler(out)
	}
	return newChatAssembler(out)
}

// backoff is the wait before retry n (1-based): the server's Retry-After
// when it sent one, else RetryBaseDelay·2^(n-1) ±25% jitter; both capped
// by MaxRetryDelay.
func (c *openAIClient) backoff(n int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return min(retryAfter, c.cfg.MaxRetryDelay)
	}
	d := c.cfg.RetryBaseDelay << min(n-1, 20)
	if d <= 0 || d > c.cfg.MaxRetryDelay {
		d = c.cfg.MaxRetryDelay // also guards the shift against overflow
	}
	d = d*3/4 + rand.N(d/2+1)
	return min(d, c.cfg.MaxRetryDelay)
}

// retryAfter reads retry-after-ms, then Retry-After (seconds or an HTTP
// date); 0 when absent, unreadable or in the past.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if v := strings.TrimSpace(h.Get("retry-after-ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 && ms < 1e9 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s > 0 && s < 1e6 {
			return time.Duration(s * float64(time.Second))
		}
		return 0
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// roundDelay keeps retry notices readable ("850ms", "4.2s").
func roundDelay(d time.Duration) time.Duration {
	if d < time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(100 * time.Millisecond)
}
