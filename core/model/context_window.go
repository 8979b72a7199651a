package model

import (
	"fmt"
	"strings"
)

// contextExceeded reports whether an error object (code, type, message)
// says the request is longer than the model's context window, in the
// wordings of OpenAI (code context_length_exceeded, "maximum context
// length"), Anthropic-compatible proxies ("prompt is too long"), vLLM and
// llama.cpp ("exceeds the available context size").
func contextExceeded(code any, typ, msg string) bool {
	if s := strings.ToLower(fmt.Sprint(code)); s == "context_length_exceeded" || s == "context_window_exceeded" {
		return true
	}
	if t := strings.ToLower(typ); t == "context_length_exceeded" || t == "context_window_exceeded" {
		return true
	}
	m := strings.ToLower(msg)
	for _, p := range contextExceededPhrases {
		if strings.Contains(m, p) {
			return true
		}
	}
	return false
}

var contextExceededPhrases = []string{
	"context_length_exceeded",
	"maximum context length",
	"context length exceeded",
	"exceeds the context window",
	"exceeds the available context size",
	"input exceeds the context window",
	"prompt is too long",
	"too many tokens in the prompt",
	"context window exceeded",
}

// knownContextWindows are input context windows (tokens) of well-known
// models, by exact id or id prefix (the longest match wins), for providers
// whose /models list does not say. Values follow Codex's
// codex-rs/core/src/openai_model_info.rs and the vendors' model pages.
var knownContextWindows = []struct {
	prefix string
	tokens int64
}{
	{"gpt-5", 272_000},
	{"codex-", 272_000},
	{"gpt-oss-", 96_000},
	{"o3", 200_000},
	{"o4-mini", 200_000},
	{"o1", 200_000},
	{"gpt-4.1", 1_047_576},
	{"gpt-4o", 128_000},
	{"gpt-4-turbo", 128_000},
	{"gpt-3.5-turbo", 16_385},
	{"claude-", 200_000},
	{"gemini-", 1_048_576},
	{"deepseek-", 128_000},
	{"qwen3-coder", 262_144},
	{"kimi-k2", 131_072},
	{"glm-4.5", 131_072},
	{"grok-4", 256_000},
}

// KnownContextWindow returns the context window of a well-known model, 0
// when grove does not know it. A provider prefix ("openai/gpt-5") is
// ignored.
func KnownContextWindow(model string) int64 {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	best, tokens := 0, int64(0)
	for _, k := range knownContextWindows {
		if strings.HasPrefix(m, k.prefix) && len(k.prefix) > best {
			best, tokens = len(k.prefix), k.tokens
		}
	}
	return tokens
}
