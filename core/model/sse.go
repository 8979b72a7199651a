package model

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/openai/openai-go/v3/packages/ssestream"
)

// assembler turns one attempt's events into a Response.
type assembler interface {
	// event handles one SSE event; done reports the terminal event.
	event(typ string, data []byte) (done bool, err error)
	// whole handles a non-streamed JSON body (a server that ignored
	// "stream": true).
	whole(body []byte) error
	// end is called when the stream stopped before a terminal event, with
	// the reason; it returns nil if what arrived is nevertheless complete.
	end(reason error) error
	response() Response
}

// streamError is the failure of one attempt.
type streamError struct {
	status     int // HTTP status, 0 when the failure was not one
	msg        string
	param      string // the request field an HTTP 400 names, if any
	retryable  bool
	retryAfter time.Duration
	// contextExceeded: the provider refused the request as longer than the
	// model's context window (the caller compacts and retries).
	contextExceeded bool
	// previousMissing: the provider does not hold the response named in
	// previous_response_id (response_chain.go).
	previousMissing bool
	// stream: the failure came after the response started (a dropped or
	// truncated stream, an error event), which stream_max_retries bounds;
	// request_max_retries bounds the others.
	stream bool
}

func (e *streamError) Error() string { return e.msg }

// cause is the short reason shown in a retry notice.
func (e *streamError) cause() string {
	if e.status != 0 {
		return fmt.Sprintf("HTTP %d", e.status)
	}
	return e.msg
}

var (
	errIdle          = errors.New("stream idle")
	errHeaderTimeout = errors.New("no response headers")
)

// maxBody bounds what is read of a non-streamed or error body.
const maxBody = 32 << 20

// attempt posts payload once and feeds the reply to asm. It returns nil
// when the reply is complete, the parent's error when it was cancelled,
// and a *streamError otherwise.
func (c *openAIClient) attempt(parent context.Context, payload reqBody, headers map[string]string, asm assembler) (err error) {
	started := false
	defer func() {
		var se *streamError
		if started && errors.As(err, &se) {
			se.stream = true
		}
	}()
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	// Until the headers arrive the header timeout applies (connecting
	// included); then the idle timer, restarted by every read that
	// returns bytes (SSE keep-alive comments count).
	waiting := time.AfterFunc(c.cfg.ResponseHeaderTimeout, func() { cancel(errHeaderTimeout) })
	req, err := c.newRequest(ctx, http.MethodPost, c.streamURL, payload)
	if err != nil {
		waiting.Stop()
		return &streamError{msg: err.Error()}
	}
	req.Header.Set("Accept", "text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := c.http.Do(req)
	waiting.Stop()
	if err != nil {
		if parent.Err() != nil {
			return parent.Err()
		}
		if context.Cause(ctx) == errHeaderTimeout {
			return &streamError{msg: fmt.Sprintf("no response within %s", c.cfg.ResponseHeaderTimeout), retryable: true}
		}
		return c.transportError(err)
	}
	defer res.Body.Close()
	if context.Cause(ctx) == errHeaderTimeout {
		return &streamError{msg: fmt.Sprintf("no response within %s", c.cfg.ResponseHeaderTimeout), retryable: true}
	}
	idle := time.AfterFunc(c.cfg.StreamIdleTimeout, func() { cancel(errIdle) })
	defer idle.Stop()
	res.Body = &activityReader{ReadCloser: res.Body, idle: idle, after: c.cfg.StreamIdleTimeout}
	if res.StatusCode >= 300 {
		return c.httpError(res)
	}
	started = true
	switch mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type")); mt {
	case "application/json":
		body, err := io.ReadAll(io.LimitReader(res.Body, maxBody))
		if err != nil {
			if parent.Err() != nil {
				return parent.Err()
			}
			return c.dropped(ctx, err)
		}
		return asm.whole(body)
	case "text/html", "application/xhtml+xml":
		// A login page, a proxy's placeholder, a base_url without /v1:
		// the same page would come again.
		return &streamError{msg: fmt.Sprintf("the server answered with an HTML page (%s), not an event stream: check base_url", mt)}
	}
	res.Body = &eventLimit{ReadCloser: res.Body, max: maxEventBytes(c.cfg.MaxMessageBytes)}
	dec := ssestream.NewDecoder(res)
	for dec.Next() {
		ev := dec.Event()
		done, err := asm.event(ev.Type, ev.Data)
		if err != nil {
			return err
		}
		if done {
			drain(res.Body, cancel)
			return nil
		}
	}
	if parent.Err() != nil {
		return parent.Err()
	}
	if err := dec.Err(); errors.Is(err, errEventTooLarge) {
		return &streamError{msg: err.Error()} // it would be as large again
	}
	return asm.end(c.dropped(ctx, dec.Err()))
}

// drain reads what follows the terminal event (the chunked encoding's end)
// so the connection goes back to the pool instead of being closed; a
// server that keeps talking is cut after a second.
func drain(body io.Reader, cancel context.CancelCauseFunc) {
	t := time.AfterFunc(time.Second, func() { cancel(errDrain) })
	defer t.Stop()
	_, _ = io.CopyN(io.Discard, body, 64<<10)
}

var errDrain = errors.New("reply complete")

// dropped describes a reply that stopped early: idle, broken (err), or
// closed cleanly before its terminal event (err == nil).
func (c *openAIClient) dropped(ctx context.Context, err error) *streamError {
	switch {
	case context.Cause(ctx) == errIdle:
		return &streamError{msg: fmt.Sprintf("stream idle for %s", c.cfg.StreamIdleTimeout), retryable: true}
	case err != nil:
		return &streamError{msg: "stream dropped: " + redact(err.Error(), c.cfg.APIKey), retryable: true}
	}
	return &streamError{msg: "stream ended before the reply was complete", retryable: true}
}

// activityReader restarts the idle timer whenever bytes arrive.
type activityReader struct {
	io.ReadCloser
	idle  *time.Timer
	after time.Duration
}

func (r *activityReader) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	if n > 0 {
		r.idle.Reset(r.after)
	}
	return n, err
}

// transportError classifies a failure to get a response: resets, refusals
// and EOFs are transient; an unknown host or a bad certificate is not.
func (c *openAIClient) transportError(err error) error {
	msg := err.Error()
	var ue *url.Error
	if errors.As(err, &ue) {
		msg = ue.Err.Error() // the URL is reported separately
	}
	se := &streamError{msg: redact(msg, c.cfg.APIKey), retryable: true}
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var authErr x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	switch {
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound,
		errors.As(err, &certErr), errors.As(err, &authErr), errors.As(err, &hostErr):
		se.retryable = false
	}
	return se
}

// apiErrorBody is the error shape of OpenAI and most compatible servers;
// others send {"error":"text"} or {"message":"text"}.
// Mistral's validation errors carry an object as message, kept as its text.
type apiErrorBody struct {
	Message string
	Type    string
	Code    any
	Param   string
}

// parseErrorObject reads an error object (or string) from raw JSON.
func parseErrorObject(raw []byte) apiErrorBody {
	var e struct {
		Message flexString `json:"message"`
		Type    flexString `json:"type"`
		Code    any        `json:"code"`
		Param   flexString `json:"param"`
	}
	if json.Unmarshal(raw, &e) != nil {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			e.Message = flexString(s)
		}
	}
	return apiErrorBody{Message: string(e.Message), Type: string(e.Type), Code: e.Code, Param: string(e.Param)}
}

func isErrorObject(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return s != "" && s != "null" && s != "{}" && s != `""`
}

// httpError turns an error status into a streamError: 408, 409, 429 and
// 5xx are retryable, honouring the server's Retry-After.
func (c *openAIClient) httpError(res *http.Response) error {
	raw, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	var wrapper struct {
		Error   json.RawMessage `json:"error"`
		Message flexString      `json:"message"`
	}
	var e apiErrorBody
	if json.Unmarshal(raw, &wrapper) == nil {
		if isErrorObject(wrapper.Error) {
			e = parseErrorObject(wrapper.Error)
		}
		if e.Message == "" {
			e.Message = string(wrapper.Message)
			e.Param = parseErrorObject(raw).Param
		}
	}
	msg := e.Message
	if msg == "" {
		// Not JSON (a proxy's HTML page, say): its first line if short.
		msg = strings.TrimSpace(string(raw))
		if mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type")); mt == "text/html" || len(msg) > 300 || strings.ContainsAny(msg, "\n<") {
			msg = http.StatusText(res.StatusCode)
		}
	}
	if msg == "" {
		msg = http.StatusText(res.StatusCode)
	}
	param := e.Param
	if res.StatusCode == http.StatusBadRequest || res.StatusCode == http.StatusUnprocessableEntity {
		if p := rejectedParam(msg + " " + string(raw)); p != "" && (param == "" || !omittable[param]) {
			param = p
		}
	}
	se := &streamError{status: res.StatusCode, msg: redact(msg, c.cfg.APIKey), param: param, retryAfter: retryAfter(res.Header, time.Now())}
	se.contextExceeded = contextExceeded(e.Code, e.Type, msg)
	se.previousMissing = previousMissing(e.Code, msg)
	switch s := res.StatusCode; {
	case s == 408, s == 409, s == 429, s >= 500:
		se.retryable = true
	}
	return se
}

// streamErrorObject turns an error object inside the stream into an
// error, retryable only when it reports a server fault, an overload or a
// rate limit: by an HTTP-like numeric code (OpenRouter sends
// {"code":502}) or by a type/code name.
func streamErrorObject(raw json.RawMessage) error {
	e := parseErrorObject(raw)
	if e.Message == "" {
		e.Message = strings.TrimSpace(string(raw))
	}
	retry := false
	switch code := e.Code.(type) {
	case float64:
		retry = retryableStatus(int(code))
	case string:
		if n, err := strconv.Atoi(code); err == nil {
			retry = retryableStatus(n)
		} else {
			retry = transientName(code)
		}
	}
	retry = retry || transientName(e.Type)
	return &streamError{msg: "provider error in stream: " + e.Message, param: e.Param, retryable: retry, contextExceeded: contextExceeded(e.Code, e.Type, e.Message), previousMissing: previousMissing(e.Code, e.Message)}
}

// retryableStatus: timeouts, conflicts, rate limits and server faults.
func retryableStatus(s int) bool { return s == 408 || s == 409 || s == 429 || s >= 500 && s <= 599 }

// transientName reports whether an error type or code names a transient
// condition.
func transientName(name string) bool {
	switch strings.ToLower(name) {
	case "server_error", "internal_error", "internal_server_error", "api_error",
		"rate_limit_exceeded", "rate_limit_error", "overloaded_error", "overloaded",
		"service_unavailable", "service_unavailable_error", "timeout", "bad_gateway":
		return true
	}
	return false
}

// paramPatterns find the parameter a 400 rejects by name, in the wordings
// of OpenAI, Azure, vLLM, LiteLLM and others.
var paramPatterns = []*regexp.Regexp{
	regexp.MustCompile(`(?i)unknown parameter:? '?"?([a-z_.]+)`),
	regexp.MustCompile(`(?i)unrecognized request arguments? supplied:? '?"?([a-z_.]+)`),
	regexp.MustCompile(`(?i)unsupported parameter:? '?"?([a-z_.]+)`),
	regexp.MustCompile(`(?i)'([a-z_.]+)' is not (?:supported|permitted|allowed)`),
	regexp.MustCompile(`(?i)"?([a-z_.]+)"? is not (?:supported|permitted|allowed)`),
	// Pydantic validation (Mistral, FastAPI-based servers): 422 with
	// {"type":"extra_forbidden","loc":["body","stream_options"],…}.
	regexp.MustCompile(`(?i)"extra_forbidden"\s*,\s*"loc"\s*:\s*\[\s*"body"\s*,\s*"([a-z_.]+)"`),
}

// rejectedParam returns the omittable parameter msg rejects, or "".
func rejectedParam(msg string) string {
	for _, re := range paramPatterns {
		for _, m := range re.FindAllStringSubmatch(msg, -1) {
			p := strings.ToLower(strings.TrimSuffix(m[1], "."))
			if omittable[p] {
				return p
			}
		}
	}
	return ""
}
