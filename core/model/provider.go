package model

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
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

// openAIClient speaks both wire APIs through openai-go's transport (auth,
// base URL, headers); grove builds the bodies and reads the SSE itself so
// it controls retries, de-duplication and error reporting.
type openAIClient struct {
	cfg    ProviderConfig
	client openai.Client

	modelsMu   sync.Mutex
	models     []ModelInfo
	modelsAt   time.Time
	modelsErr  error
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
	opts := []option.RequestOption{
		option.WithBaseURL(cfg.BaseURL + "/"),
		option.WithMaxRetries(0), // grove retries itself (see retry.go)
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	} else {
		// Never send a key picked up from the environment to another provider.
		opts = append(opts, option.WithAPIKey("none"), option.WithHeaderDel("Authorization"))
	}
	for k, v := range cfg.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
	}
	return &openAIClient{cfg: cfg, client: openai.NewClient(opts...)}, nil
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
	page, err := c.client.Models.List(ctx)
	if err != nil {
		var apiErr *openai.Error
		if errors.As(err, &apiErr) {
			switch apiErr.StatusCode {
			case 404, 405, 501:
				c.modelsUnsp = true
				return nil, ErrModelsUnsupported
			}
		}
		return nil, fmt.Errorf("%w: %s", ErrModelsUnavailable, redact(err.Error(), c.cfg.APIKey))
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
