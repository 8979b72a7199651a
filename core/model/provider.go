package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// ProviderConfig describes an OpenAI-compatible endpoint.
type ProviderConfig struct {
	Name    string
	BaseURL string
	// APIKey comes from the environment; it is sent as a bearer token and
	// never appears in errors or logs.
	APIKey  string
	WireAPI string // "chat" | "responses"
	Headers map[string]string
	// MaxRetries bounds retries of one call (default 4).
	MaxRetries int
	// StreamIdleTimeout fails a stream that sends nothing for this long.
	StreamIdleTimeout time.Duration
	// RetryBaseDelay is the first backoff (default 500ms); tests shrink it.
	RetryBaseDelay time.Duration
	MaxRetryDelay  time.Duration
	HTTPClient     *http.Client
	ModelsTTL      time.Duration
}

// openAIClient speaks both OpenAI wire APIs. grove builds the bodies, posts
// them with net/http and decodes the SSE with openai-go's ssestream, so it
// controls retries, de-duplication and error reporting. (openai-go's
// generated client is not used: linking it costs ~30 MB of resident memory
// per process, more than the rest of grove together.)
type openAIClient struct {
	cfg  ProviderConfig
	http *http.Client

	modelsMu   sync.Mutex
	models     []ModelInfo
	modelsAt   time.Time
	modelsUnsp bool
}

// New returns a Client for an OpenAI-compatible provider.
func New(cfg ProviderConfig) (Client, error) {
	if cfg.BaseURL == "" {
		return nil, errors.New("model provider: base_url is empty")
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	if cfg.WireAPI == "" {
		cfg.WireAPI = "chat"
		if strings.Contains(cfg.BaseURL, "api.openai.com") {
			cfg.WireAPI = "responses"
		}
	}
	if cfg.WireAPI != "chat" && cfg.WireAPI != "responses" {
		return nil, fmt.Errorf("model provider %s: wire_api %q: expected chat or responses", cfg.Name, cfg.WireAPI)
	}
	if cfg.Name == "" {
		cfg.Name = "openai"
	}
	if cfg.MaxRetries == 0 {
		cfg.MaxRetries = 4
	}
	if cfg.RetryBaseDelay == 0 {
		cfg.RetryBaseDelay = 500 * time.Millisecond
	}
	if cfg.MaxRetryDelay == 0 {
		cfg.MaxRetryDelay = 30 * time.Second
	}
	if cfg.StreamIdleTimeout == 0 {
		cfg.StreamIdleTimeout = 5 * time.Minute
	}
	if cfg.ModelsTTL == 0 {
		cfg.ModelsTTL = 5 * time.Minute
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Transport: http.DefaultTransport}
	}
	return &openAIClient{cfg: cfg, http: hc}, nil
}

func (c *openAIClient) Name() string { return c.cfg.Name }

func (c *openAIClient) endpoint() string {
	if c.cfg.WireAPI == "responses" {
		return "responses"
	}
	return "chat/completions"
}

// Models lists the provider's models (cached).
func (c *openAIClient) Models(ctx context.Context) ([]ModelInfo, error) {
	c.modelsMu.Lock()
	defer c.modelsMu.Unlock()
	if c.modelsUnsp {
		return nil, ErrModelsUnsupported
	}
	if c.models != nil && time.Since(c.modelsAt) < c.cfg.ModelsTTL {
		return append([]ModelInfo(nil), c.models...), nil
	}
	req, err := c.newRequest(ctx, http.MethodGet, "models", nil)
	if err != nil {
		return nil, err
	}
	res, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", ErrModelsUnavailable, redact(err.Error(), c.cfg.APIKey))
	}
	defer res.Body.Close()
	switch {
	case res.StatusCode == 404 || res.StatusCode == 405 || res.StatusCode == 501:
		c.modelsUnsp = true
		return nil, ErrModelsUnsupported
	case res.StatusCode >= 400:
		return nil, fmt.Errorf("%w: HTTP %d from %s", ErrModelsUnavailable, res.StatusCode, c.cfg.Name)
	}
	var page struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(io.LimitReader(res.Body, 8<<20)).Decode(&page); err != nil {
		return nil, fmt.Errorf("%w: unreadable model list: %v", ErrModelsUnavailable, err)
	}
	var out []ModelInfo
	for _, m := range page.Data {
		out = append(out, ModelInfo{ID: m.ID})
	}
	c.models, c.modelsAt = out, time.Now()
	return append([]ModelInfo(nil), out...), nil
}

// redact removes the key from a message, defensively.
func redact(s, key string) string {
	if key == "" || len(key) < 4 {
		return s
	}
	return strings.ReplaceAll(s, key, "[redacted]")
}

// newRequest builds an authenticated request to the provider.
func (c *openAIClient) newRequest(ctx context.Context, method, path string, body io.Reader) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.cfg.BaseURL+"/"+path, body)
	if err != nil {
		return nil, fmt.Errorf("model provider %s: %w", c.cfg.Name, err)
	}
	if c.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "grove")
	for k, v := range c.cfg.Headers {
		req.Header.Set(k, v)
	}
	return req, nil
}
