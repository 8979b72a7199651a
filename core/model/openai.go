package model

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// ProviderConfig describes an OpenAI-compatible endpoint.
type ProviderConfig struct {
	Name    string // display name, used in errors and retry notices (default "openai")
	BaseURL string // e.g. https://api.openai.com/v1 (a query such as ?api-version= is kept)
	// APIKey comes from the environment; it is sent as a bearer token and
	// never appears in errors or logs.
	APIKey string
	// WireAPI is "chat" (Chat Completions) or "responses"; empty picks
	// "responses" for api.openai.com and "chat" for everything else.
	WireAPI string
	Headers map[string]string // extra HTTP headers sent with every request
	// MaxRetries bounds retries of one call: nil means the default (4),
	// 0 one attempt only.
	MaxRetries *int
	// StreamMaxRetries bounds retries of a stream that broke after the
	// response started: nil means Codex's default (5).
	StreamMaxRetries *int
	// StreamIdleTimeout fails (and retries) an attempt whose stream
	// receives no bytes for this long (default 300s).
	StreamIdleTimeout time.Duration
	// ResponseHeaderTimeout fails (and retries) an attempt whose response
	// headers do not arrive in time, connecting included (default 120s).
	ResponseHeaderTimeout time.Duration
	// QueryParams are added to every request URL (Azure's api-version).
	QueryParams map[string]string
	// OmitParams are request parameters never sent to this provider
	// (stream_options, parallel_tool_calls, reasoning_effort, include, …);
	// a parameter the provider rejects by name joins them at run time.
	OmitParams []string
	// MaxMessageBytes caps one reply's text, reasoning and each tool call's
	// arguments (default DefaultMaxMessageBytes); the rest is dropped with
	// a marker and a warning.
	MaxMessageBytes int
	// RetryBaseDelay is the first backoff (default 500ms); tests shrink it.
	RetryBaseDelay time.Duration
	// MaxRetryDelay caps every backoff, Retry-After included (default 30s).
	MaxRetryDelay time.Duration
	// HTTPClient replaces the default client (a pooled transport, no
	// overall timeout: an attempt is bounded by ResponseHeaderTimeout until
	// its headers arrive, then by StreamIdleTimeout).
	HTTPClient *http.Client
	// ModelsTTL is how long a model list is cached (default 5 min).
	ModelsTTL time.Duration
	// ModelsTimeout bounds one GET /models (default 20s).
	ModelsTimeout time.Duration
	// StoreResponses (store_responses, Responses API only) asks the
	// provider to keep each response (store: true) and sends a thread's
	// next request as only what is new since its last response plus
	// previous_response_id, instead of the whole history
	// (response_chain.go).
	StoreResponses bool
}

// openAIClient speaks both OpenAI wire APIs. grove builds the request
// bodies, posts them with net/http and decodes the SSE with openai-go's
// ssestream, so it alone controls retries, de-duplication and error
// reporting. (openai-go's generated client is not linked: it costs more
// resident memory and binary size than the rest of grove together.)
type openAIClient struct {
	cfg       ProviderConfig
	http      *http.Client
	streamURL string // base URL + /chat/completions or /responses
	modelsURL string // base URL + /models
	// compactURL is base URL + /responses/compact (compact_remote.go).
	compactURL string
	models     modelsCache
	retries    int
	// streamRetries bounds retries of broken streams (stream_max_retries).
	streamRetries int
	// omit holds the parameters left out of every request: configured, or
	// refused by the provider during this process.
	omitMu sync.Mutex
	omit   map[string]bool
	// noChain: the provider refused previous_response_id as a parameter;
	// requests carry the whole history from then on.
	noChain atomic.Bool
}

// New returns a Client for an OpenAI-compatible provider. It checks the
// configuration; it does not contact the provider.
func New(cfg ProviderConfig) (Client, error) {
	if cfg.Name == "" {
		cfg.Name = "openai"
	}
	if cfg.BaseURL == "" {
		return nil, fmt.Errorf("model provider %s: base_url is empty", cfg.Name)
	}
	base, err := url.Parse(strings.TrimRight(cfg.BaseURL, "/"))
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("model provider %s: base_url %q: want an http:// or https:// URL", cfg.Name, cfg.BaseURL)
	}
	if cfg.WireAPI == "" {
		cfg.WireAPI = "chat"
		if base.Hostname() == "api.openai.com" {
			cfg.WireAPI = "responses"
		}
	}
	if cfg.WireAPI != "chat" && cfg.WireAPI != "responses" {
		return nil, fmt.Errorf("model provider %s: wire_api %q: want \"chat\" or \"responses\"", cfg.Name, cfg.WireAPI)
	}
	if cfg.StoreResponses && cfg.WireAPI != "responses" {
		return nil, fmt.Errorf("model provider %s: store_responses needs wire_api = \"responses\" (Chat Completions keeps no responses)", cfg.Name)
	}
	for k, v := range cfg.Headers {
		if !validHeaderName(k) {
			return nil, fmt.Errorf("model provider %s: http_headers: %q is not a valid header name", cfg.Name, k)
		}
		if strings.ContainsAny(v, "\r\n\x00") {
			return nil, fmt.Errorf("model provider %s: http_headers: value of %s contains a line break or NUL", cfg.Name, k)
		}
	}
	retries, streamRetries := 4, 5
	if cfg.MaxRetries != nil {
		retries = max(*cfg.MaxRetries, 0)
	}
	if cfg.StreamMaxRetries != nil {
		streamRetries = max(*cfg.StreamMaxRetries, 0)
	}
	if cfg.ResponseHeaderTimeout < 0 || cfg.StreamIdleTimeout < 0 || cfg.MaxMessageBytes < 0 {
		return nil, fmt.Errorf("model provider %s: timeouts and max_message_bytes must not be negative", cfg.Name)
	}
	cfg.ResponseHeaderTimeout = defaultIf(cfg.ResponseHeaderTimeout, 120*time.Second)
	cfg.MaxMessageBytes = defaultIf(cfg.MaxMessageBytes, DefaultMaxMessageBytes)
	omit := map[string]bool{}
	for _, p := range cfg.OmitParams {
		if !omittable[p] {
			return nil, fmt.Errorf("model provider %s: omit_params: %q is not a parameter grove can leave out (known: %s)", cfg.Name, p, strings.Join(omittableNames(), ", "))
		}
		omit[p] = true
	}
	q := base.Query()
	for k, v := range cfg.QueryParams {
		if k == "" {
			return nil, fmt.Errorf("model provider %s: query_params: empty parameter name", cfg.Name)
		}
		q.Set(k, v)
	}
	base.RawQuery = q.Encode()
	cfg.RetryBaseDelay = defaultIf(cfg.RetryBaseDelay, 500*time.Millisecond)
	cfg.MaxRetryDelay = defaultIf(cfg.MaxRetryDelay, 30*time.Second)
	cfg.StreamIdleTimeout = defaultIf(cfg.StreamIdleTimeout, 300*time.Second)
	cfg.ModelsTTL = defaultIf(cfg.ModelsTTL, 5*time.Minute)
	cfg.ModelsTimeout = defaultIf(cfg.ModelsTimeout, 20*time.Second)
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Transport: newTransport()}
	}
	path := "chat/completions"
	if cfg.WireAPI == "responses" {
		path = "responses"
	}
	return &openAIClient{
		cfg:           cfg,
		http:          hc,
		streamURL:     base.JoinPath(path).String(),
		modelsURL:     base.JoinPath("models").String(),
		compactURL:    base.JoinPath("responses", "compact").String(),
		retries:       retries,
		omit:          omit,
		streamRetries: streamRetries,
	}, nil
}

func defaultIf[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// newTransport keeps more idle connections per host than the default (2):
// a tree of agents talks to one provider from many goroutines at once.
func newTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 32
	t.DialContext = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	return t
}

// validHeaderName reports whether k is an RFC 9110 token.
func validHeaderName(k string) bool {
	if k == "" {
		return false
	}
	for _, r := range k {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case strings.ContainsRune("!#$%&'*+-.^_`|~", r):
		default:
			return false
		}
	}
	return true
}

// Name implements Client.
func (c *openAIClient) Name() string { return c.cfg.Name }

// CloseIdleConnections closes the kept-alive connections to the provider
// (a session that closes leaves no socket or reader goroutine behind).
func (c *openAIClient) CloseIdleConnections() { c.http.CloseIdleConnections() }

// newRequest builds an authenticated request to the provider.
func (c *openAIClient) newRequest(ctx context.Context, method, url string, body reqBody) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		rd = body.reader()
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return nil, fmt.Errorf("model provider %s: %s", c.cfg.Name, redact(err.Error(), c.cfg.APIKey))
	}
	if body != nil {
		req.ContentLength = int64(body.len())
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(body.reader()), nil }
	}
	if c.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("User-Agent", "grove")
	for k, v := range c.cfg.Headers {
		req.Header.Set(k, v)
	}
	return req, nil
}

// redact removes the key from a message, defensively (a proxy may echo it).
// reqBody is a request body in pieces, sent one after another: a long
// conversation's encoded history is sent from the cache where it lies,
// never copied into a new buffer per request. The pieces are never
// modified.
type reqBody [][]byte

func (b reqBody) len() int {
	n := 0
	for _, p := range b {
		n += len(p)
	}
	return n
}

func (b reqBody) reader() io.Reader {
	rs := make([]io.Reader, len(b))
	for i, p := range b {
		rs[i] = bytes.NewReader(p)
	}
	return io.MultiReader(rs...)
}

// bytes joins the pieces (tests).
func (b reqBody) bytes() []byte { return bytes.Join(b, nil) }

func redact(s, key string) string {
	if len(key) < 4 {
		return s
	}
	return strings.ReplaceAll(s, key, "[redacted]")
}

// omittable are the request parameters grove can leave out when a
// provider does not know them, by the names providers use in errors.
var omittable = map[string]bool{
	"stream_options": true, "parallel_tool_calls": true, "reasoning_effort": true,
	"reasoning": true, "reasoning.effort": true, "reasoning.summary": true,
	"include": true, "reasoning_content": true, "prompt_cache_key": true, "temperature": true, "top_p": true,
}

func omittableNames() []string {
	names := make([]string, 0, len(omittable))
	for k := range omittable {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// omitted returns a copy of the parameters to leave out.
func (c *openAIClient) omitted() map[string]bool {
	c.omitMu.Lock()
	defer c.omitMu.Unlock()
	m := make(map[string]bool, len(c.omit))
	for k := range c.omit {
		m[k] = true
	}
	return m
}

// refuse records that the provider rejected param; it reports whether
// this is news (so the caller retries once without it).
func (c *openAIClient) refuse(param string) bool {
	c.omitMu.Lock()
	defer c.omitMu.Unlock()
	if c.omit[param] {
		return false
	}
	c.omit[param] = true
	return true
}
