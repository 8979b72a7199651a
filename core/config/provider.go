package config

import (
	"fmt"
	"os"
	"strings"
)

// Resolved is the provider grove will talk to.
type Resolved struct {
	Name    string
	BaseURL string
	// APIKey comes from the environment; never persisted.
	APIKey     string
	WireAPI    string // chat | responses
	Headers    map[string]string
	Model      string
	MaxRetries int
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
		if getenv("OPENAI_API_KEY") == "" && getenv("OPENAI_BASE_URL") == "" {
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
		if env := getenv("OPENAI_BASE_URL"); env != "" {
			base = env
			// A custom endpoint speaks chat unless the user says otherwise.
			if user, ok := c.ModelProviders[name]; !ok || user.WireAPI == "" {
				p.WireAPI = ""
			}
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
	if p.EnvKey != "" {
		r.APIKey = getenv(p.EnvKey)
		if r.APIKey == "" && strings.Contains(base, "api.openai.com") {
			return Resolved{}, fmt.Errorf("provider %s needs an API key in $%s", name, p.EnvKey)
		}
	}
	for k, v := range p.HTTPHeaders {
		r.Headers[k] = v
	}
	for k, env := range p.EnvHTTPHeaders {
		if v := getenv(env); v != "" {
			r.Headers[k] = v
		}
	}
	if p.RequestMaxRetries != nil {
		r.MaxRetries = *p.RequestMaxRetries
	}
	if r.Model == "" {
		r.Model = DefaultModel
	}
	return r, nil
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
	if over.WireAPI != "" {
		base.WireAPI = over.WireAPI
	}
	if over.HTTPHeaders != nil {
		base.HTTPHeaders = over.HTTPHeaders
	}
	if over.EnvHTTPHeaders != nil {
		base.EnvHTTPHeaders = over.EnvHTTPHeaders
	}
	if over.RequestMaxRetries != nil {
		base.RequestMaxRetries = over.RequestMaxRetries
	}
	return base
}
