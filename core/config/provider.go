package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"time"
)

// Resolved is the provider grove will talk to.
type Resolved struct {
	Name    string
	BaseURL string
	// APIKey comes from the environment; never persisted.
	APIKey  string
	WireAPI string // chat | responses
	Headers map[string]string
	Model   string
	// MaxRetries is request_max_retries: nil = the model layer's default,
	// 0 = one attempt.
	MaxRetries *int
	// StreamMaxRetries is stream_max_retries: nil = the model layer's
	// default.
	StreamMaxRetries *int
	// StreamIdleTimeout (stream_idle_timeout_ms) cuts a stream silent for
	// this long; ResponseHeaderTimeout (response_header_timeout_ms) an
	// attempt whose headers do not arrive in time. 0 = default.
	StreamIdleTimeout     time.Duration
	ResponseHeaderTimeout time.Duration
	// QueryParams (query_params) are added to every request URL, e.g.
	// Azure's api-version.
	QueryParams map[string]string
	// OmitParams (omit_params) are request parameters never sent.
	OmitParams []string
	// MaxMessageBytes (max_message_bytes) caps one model message; 0 =
	// default.
	MaxMessageBytes int
	// StoreResponses (store_responses) has the provider keep responses and
	// sends a thread's requests as what is new plus previous_response_id.
	StoreResponses bool
	// Demo means no provider is configured: run the offline demo model.
	Demo bool
}

// DefaultModel is used when no model is configured.
const DefaultModel = "gpt-5.1-codex"

var builtinProviders = map[string]ProviderConfig{
	"openai":     {Name: "OpenAI", BaseURL: "https://api.openai.com/v1", EnvKey: "OPENAI_API_KEY", WireAPI: "responses"},
	"ollama":     {Name: "Ollama", BaseURL: "http://localhost:11434/v1", WireAPI: "chat"},
	"openrouter": {Name: "OpenRouter", BaseURL: "https://openrouter.ai/api/v1", EnvKey: "OPENROUTER_API_KEY", WireAPI: "chat"},
	"lmstudio":   {Name: "LM Studio", BaseURL: "http://localhost:1234/v1", WireAPI: "chat"},
}

// ResolveProvider picks the provider: an explicit model_provider, else
// OPENAI_API_KEY / OPENAI_BASE_URL from the environment, else the demo.
func (c *Config) ResolveProvider(getenv func(string) string) (Resolved, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	name := c.ModelProvider
	if name == "demo" {
		return Resolved{Name: "demo", Model: "grove-demo", Demo: true}, nil
	}
	if name == "" {
		if getenv("OPENAI_API_KEY") == "" && getenv("CODEX_API_KEY") == "" && getenv("OPENAI_BASE_URL") == "" && c.OpenAIBaseURL == "" {
			return Resolved{Name: "demo", Model: "grove-demo", Demo: true}, nil
		}
		name = "openai"
	}
	p, ok := c.ModelProviders[name]
	if b, isBuiltin := builtinProviders[name]; isBuiltin {
		if !ok {
			p = b
		} else {
			p = mergeProvider(b, p)
		}
		ok = true
	}
	if !ok {
		return Resolved{}, fmt.Errorf("model_provider %q is not defined: add [model_providers.%s] with base_url to config.toml (known: %s)", name, name, strings.Join(c.ProviderNames(), ", "))
	}
	base := p.BaseURL
	if name == "openai" {
		env := getenv("OPENAI_BASE_URL")
		if env == "" {
			env = c.OpenAIBaseURL
		}
		if env != "" {
			// Codex keeps the built-in provider's Responses wire at a
			// custom base URL (a proxy, Azure, a local Responses server);
			// a Chat Completions endpoint is a provider of its own
			// (wire_api = "chat", or one of ollama, lmstudio, openrouter).
			base = env
		}
	}
	if base == "" {
		return Resolved{}, fmt.Errorf("model_providers.%s.base_url is empty", name)
	}
	wire := p.WireAPI
	if wire == "" {
		wire = "chat"
		if strings.Contains(base, "api.openai.com") {
			wire = "responses"
		}
	}
	r := Resolved{Name: name, BaseURL: strings.TrimRight(base, "/"), WireAPI: wire, Model: c.Model, Headers: map[string]string{}}
	if p.Name != "" {
		r.Name = name
	}
	key, err := c.apiKey(name, p, base, getenv)
	if err != nil {
		return Resolved{}, err
	}
	r.APIKey = key
	for k, v := range p.HTTPHeaders {
		r.Headers[k] = v
	}
	for k, env := range p.EnvHTTPHeaders {
		if v := getenv(env); v != "" {
			r.Headers[k] = v
		}
	}
	if r.MaxRetries, err = retryCount(name, "request_max_retries", p.RequestMaxRetries); err != nil {
		return Resolved{}, err
	}
	if r.StreamMaxRetries, err = retryCount(name, "stream_max_retries", p.StreamMaxRetries); err != nil {
		return Resolved{}, err
	}
	if r.StreamIdleTimeout, err = millis(name, "stream_idle_timeout_ms", p.StreamIdleTimeout); err != nil {
		return Resolved{}, err
	}
	if r.ResponseHeaderTimeout, err = millis(name, "response_header_timeout_ms", p.ResponseHeaderTimeout); err != nil {
		return Resolved{}, err
	}
	if p.MaxMessageBytes != nil {
		if *p.MaxMessageBytes <= 0 {
			return Resolved{}, fmt.Errorf("model_providers.%s.max_message_bytes = %d: want a positive size", name, *p.MaxMessageBytes)
		}
		r.MaxMessageBytes = *p.MaxMessageBytes
	}
	r.QueryParams = p.QueryParams
	r.OmitParams = p.OmitParams
	if p.StoreResponses != nil && *p.StoreResponses {
		if wire != "responses" {
			return Resolved{}, fmt.Errorf("model_providers.%s.store_responses = true needs wire_api = \"responses\" (the provider speaks %s, which keeps no responses)", name, wire)
		}
		r.StoreResponses = true
	}
	if r.Model == "" {
		r.Model = DefaultModel
	}
	return r, nil
}

// apiKey reads the provider's key: $env_key, else (built-in openai only)
// $CODEX_API_KEY as Codex's SDK passes it, else experimental_bearer_token.
// A provider that names an env_key never runs without it: the request
// would go out unauthenticated.
func (c *Config) apiKey(name string, p ProviderConfig, base string, getenv func(string) string) (string, error) {
	if p.EnvKey == "" {
		return p.BearerToken, nil
	}
	if v := getenv(p.EnvKey); v != "" {
		return v, nil
	}
	if name == "openai" {
		if v := getenv("CODEX_API_KEY"); v != "" {
			return v, nil
		}
	}
	if p.BearerToken != "" {
		return p.BearerToken, nil
	}
	// A local OpenAI-compatible server (ollama, llama.cpp) reached through
	// OPENAI_BASE_URL with no key at all is the one keyless use of the
	// openai provider: the request never leaves the machine.
	if _, user := c.ModelProviders[name]; name == "openai" && !user && isLoopback(base) {
		return "", nil
	}
	where := "no config file"
	if c.Source != "" {
		where = "config " + c.Source
	} else if len(c.LookedAt) > 0 {
		where = "no config file (looked at " + strings.Join(c.LookedAt, ", ") + ")"
	}
	msg := fmt.Sprintf("model provider %s needs an API key: $%s is not set (model_providers.%s.env_key; %s)", name, p.EnvKey, name, where)
	if p.EnvKeyInstructions != "" {
		msg += ": " + p.EnvKeyInstructions
	}
	return "", errors.New(msg)
}

// isLoopback reports whether a base URL's host is this machine.
func isLoopback(base string) bool {
	u, err := url.Parse(base)
	if err != nil {
		return false
	}
	h := u.Hostname()
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

func mergeProvider(base, over ProviderConfig) ProviderConfig {
	if over.Name != "" {
		base.Name = over.Name
	}
	if over.BaseURL != "" {
		base.BaseURL = over.BaseURL
	}
	if over.EnvKey != "" {
		base.EnvKey = over.EnvKey
	}
	if over.EnvKeyInstructions != "" {
		base.EnvKeyInstructions = over.EnvKeyInstructions
	}
	if over.BearerToken != "" {
		base.BearerToken = over.BearerToken
	}
	if over.WireAPI != "" {
		base.WireAPI = over.WireAPI
	}
	if over.HTTPHeaders != nil {
		base.HTTPHeaders = over.HTTPHeaders
	}
	if over.EnvHTTPHeaders != nil {
		base.EnvHTTPHeaders = over.EnvHTTPHeaders
	}
	if over.StreamMaxRetries != nil {
		base.StreamMaxRetries = over.StreamMaxRetries
	}
	if over.RequestMaxRetries != nil {
		base.RequestMaxRetries = over.RequestMaxRetries
	}
	if over.StreamIdleTimeout != nil {
		base.StreamIdleTimeout = over.StreamIdleTimeout
	}
	if over.ResponseHeaderTimeout != nil {
		base.ResponseHeaderTimeout = over.ResponseHeaderTimeout
	}
	if over.QueryParams != nil {
		base.QueryParams = over.QueryParams
	}
	if over.OmitParams != nil {
		base.OmitParams = over.OmitParams
	}
	if over.MaxMessageBytes != nil {
		base.MaxMessageBytes = over.MaxMessageBytes
	}
	if over.StoreResponses != nil {
		base.StoreResponses = over.StoreResponses
	}
	return base
}

// millis reads a positive millisecond key; nil is 0 (the default).
func millis(provider, key string, v *int64) (time.Duration, error) {
	if v == nil {
		return 0, nil
	}
	if *v <= 0 || *v > int64(24*time.Hour/time.Millisecond) {
		return 0, fmt.Errorf("model_providers.%s.%s = %d: want milliseconds between 1 and 86400000", provider, key, *v)
	}
	return time.Duration(*v) * time.Millisecond, nil
}

// retryCount checks a provider's retry setting (nil: the default).
func retryCount(provider, key string, v *int) (*int, error) {
	if v == nil {
		return nil, nil
	}
	if *v < 0 {
		return nil, fmt.Errorf("model_providers.%s.%s = %d: want 0 or more", provider, key, *v)
	}
	n := *v
	return &n, nil
}
