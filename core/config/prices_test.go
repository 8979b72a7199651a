package config

import (
	"strings"
	"testing"

	"github.com/grovecli/grove/protocol"
)

// [model_prices."<model>"] adds or replaces a price (cache_read defaults
// to input), -c sets one too, and a bad entry names itself.
func TestModelPrices(t *testing.T) {
	home := writeConfig(t, `
[model_prices."my-local"]
input = 0
output = 0

[model_prices."gpt-5"]
input = 2
cache_read = 0.2
output = 20

[model_prices."acme/big"]
input = 3
output = 15
`)
	cfg, err := Load(home, []string{`model_prices.tiny.input=1`, `model_prices.tiny.output=2`})
	if err != nil {
		t.Fatal(err)
	}
	tab, err := cfg.Prices()
	if err != nil {
		t.Fatal(err)
	}
	u := protocol.TokenUsage{InputTokens: 1_000_000, CachedInputTokens: 500_000, OutputTokens: 100_000}
	for model, want := range map[string]float64{
		"gpt-5":    0.5*2 + 0.5*0.2 + 0.1*20, // the configured price wins
		"acme/big": 1*3 + 0.1*15,             // no cache_read: cached input at the input price
		"my-local": 0,
		"tiny":     1*1 + 0.1*2,
		"o3":       0.5*2 + 0.5*0.5 + 0.1*8, // built in
	} {
		if got, ok := tab.Cost(model, u); !ok || got < want-1e-9 || got > want+1e-9 {
			t.Errorf("%s: %v %v, want %v", model, got, ok, want)
		}
	}
	if _, ok := tab.Cost("unknown-model", u); ok {
		t.Error("an unknown model got a cost")
	}
	for body, want := range map[string]string{
		"[model_prices.x]\ninput = 1":                 `model_prices."x": input and output are required`,
		"[model_prices.y]\ninput = -1\noutput = 1":    `model_prices."y": input = -1`,
		"[model_prices.z]\ninput = 1\noutput = \"a\"": "model_prices",
	} {
		if _, err := Load(writeConfig(t, body), nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err %v, want %q", body, err, want)
		}
	}
}
