package config

import (
	"strings"
	"testing"
	"time"
)

// The provider keys of the model layer reach Resolved, with values that
// mean what they say (request_max_retries = 0: one attempt).
func TestProviderModelKeys(t *testing.T) {
	home := writeConfig(t, `
model_provider = "azure"
[model_providers.azure]
base_url = "https://example.openai.azure.com/openai?api-version=2024-10-21"
request_max_retries = 0
stream_idle_timeout_ms = 1000
response_header_timeout_ms = 2500
query_params = { api-version = "2025-04-01-preview" }
omit_params = ["stream_options"]
max_message_bytes = 65536
`)
	cfg, err := Load(home, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := cfg.ResolveProvider(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if r.MaxRetries == nil || *r.MaxRetries != 0 {
		t.Fatalf("request_max_retries = 0 resolved to %v", r.MaxRetries)
	}
	if r.StreamIdleTimeout != time.Second || r.ResponseHeaderTimeout != 2500*time.Millisecond || r.MaxMessageBytes != 65536 {
		t.Fatalf("timeouts/cap: %+v", r)
	}
	if r.QueryParams["api-version"] != "2025-04-01-preview" || len(r.OmitParams) != 1 || !strings.Contains(r.BaseURL, "?api-version=2024-10-21") {
		t.Fatalf("query/omit/base: %+v", r)
	}
	// Unset keys stay unset: the model layer's defaults apply.
	cfg.ModelProvider = "ollama"
	r, err = cfg.ResolveProvider(func(string) string { return "" })
	if err != nil || r.MaxRetries != nil || r.StreamIdleTimeout != 0 {
		t.Fatalf("defaults: %+v %v", r, err)
	}
}

func TestProviderModelKeysRejectNonsense(t *testing.T) {
	for key, val := range map[string]string{
		"request_max_retries":        "-1",
		"stream_idle_timeout_ms":     "0",
		"response_header_timeout_ms": "-5",
		"max_message_bytes":          "0",
	} {
		home := writeConfig(t, "model_provider = \"p\"\n[model_providers.p]\nbase_url = \"http://localhost:1/v1\"\n"+key+" = "+val+"\n")
		cfg, err := Load(home, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cfg.ResolveProvider(func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), key) {
			t.Fatalf("%s = %s: %v", key, val, err)
		}
	}
}

// store_responses reaches the model layer for a Responses provider (the
// built-in openai too) and is refused, naming the key, for a chat one.
func TestStoreResponses(t *testing.T) {
	for _, tc := range []struct {
		config, want string
	}{
		{"model_provider = \"p\"\n[model_providers.p]\nbase_url = \"http://localhost:1/v1\"\nwire_api = \"responses\"\nstore_responses = true\n", ""},
		{"model_provider = \"openai\"\n[model_providers.openai]\nstore_responses = true\n", ""},
		{"model_provider = \"p\"\n[model_providers.p]\nbase_url = \"http://localhost:1/v1\"\nstore_responses = true\n", "store_responses"},
	} {
		cfg, err := Load(writeConfig(t, tc.config), nil)
		if err != nil {
			t.Fatal(err)
		}
		r, err := cfg.ResolveProvider(func(k string) string {
			if k == "OPENAI_API_KEY" {
				return "sk-test"
			}
			return ""
		})
		switch {
		case tc.want == "" && (err != nil || !r.StoreResponses):
			t.Fatalf("%s: store_responses not on: %+v %v", tc.config, r, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Fatalf("%s: err = %v, want one naming %s", tc.config, err, tc.want)
		}
	}
}
