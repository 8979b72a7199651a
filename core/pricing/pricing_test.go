package pricing

import (
	"math"
	"testing"

	"github.com/grovecli/grove/protocol"
)

func TestCost(t *testing.T) {
	tab := Table{"m": {Input: 2, CacheRead: 0.5, Output: 8}}
	for _, tc := range []struct {
		name  string
		model string
		u     protocol.TokenUsage
		want  float64
		ok    bool
	}{
		// 1M input of which 400k cached, 100k output of which 60k reasoning:
		// 600k×2 + 400k×0.5 + 100k×8 per 1M = 1.2 + 0.2 + 0.8.
		{"cached and reasoning", "m", protocol.TokenUsage{InputTokens: 1_000_000, CachedInputTokens: 400_000, OutputTokens: 100_000, ReasoningTokens: 60_000}, 2.2, true},
		{"a dated snapshot is the model", "m-2025-04-14", protocol.TokenUsage{InputTokens: 1_000_000}, 2, true},
		{"cached above input is capped", "m", protocol.TokenUsage{InputTokens: 10, CachedInputTokens: 50}, 10 * 0.5 / 1e6, true},
		{"unknown model: no cost", "mystery", protocol.TokenUsage{InputTokens: 1000}, 0, false},
		{"a prefix is not the model", "m-large", protocol.TokenUsage{InputTokens: 1000}, 0, false},
	} {
		got, ok := tab.Cost(tc.model, tc.u)
		if ok != tc.ok || math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: %v %v, want %v %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

func TestWithOverridesAndCheck(t *testing.T) {
	tab := Builtin().With(Table{"gpt-5": {Input: 9, Output: 9}, "local": {Input: 0, Output: 0}})
	if p, _ := tab.Lookup("gpt-5"); p.Input != 9 {
		t.Fatalf("config did not override: %+v", p)
	}
	if p, _ := Builtin().Lookup("gpt-5"); p.Input != 1.25 {
		t.Fatalf("With changed the built-in table: %+v", p)
	}
	if c, ok := tab.Cost("local", protocol.TokenUsage{InputTokens: 5000}); !ok || c != 0 {
		t.Fatalf("a free local model: %v %v", c, ok)
	}
	for _, p := range []Price{{Input: -1}, {Output: math.NaN()}, {CacheRead: math.Inf(1)}} {
		if p.Check() == nil {
			t.Errorf("%+v accepted", p)
		}
	}
	for name, p := range Builtin() {
		if err := p.Check(); err != nil || p.Input == 0 || p.Output == 0 || p.CacheRead > p.Input {
			t.Errorf("built-in %s: %+v %v", name, p, err)
		}
	}
}
