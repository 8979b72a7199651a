// Package pricing turns token usage into an estimated cost in USD from a
// table of per-model prices: grove's small built-in table, overridden and
// extended by config.toml's [model_prices."<model>"]. A model with no
// price has no cost: grove never guesses one.
package pricing

import (
	"fmt"
	"math"
	"regexp"

	"github.com/grovecli/grove/protocol"
)

// Price is a model's price in USD per 1M tokens, the unit providers
// publish. The names follow opencode's model "cost" object (input, output,
// cache_read).
type Price struct {
	Input     float64 // uncached input tokens
	CacheRead float64 // cached input tokens (a prompt-cache hit)
	Output    float64 // output tokens, reasoning included
}

// Table maps a model name to its price.
type Table map[string]Price

// Check rejects a price no provider charges: negative, NaN or infinite.
func (p Price) Check() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"input", p.Input}, {"cache_read", p.CacheRead}, {"output", p.Output}} {
		if f.v < 0 || math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			return fmt.Errorf("%s = %v: expected USD per 1M tokens, 0 or more", f.name, f.v)
		}
	}
	return nil
}

// With returns the table with over's entries added or replacing its own.
func (t Table) With(over Table) Table {
	out := make(Table, len(t)+len(over))
	for k, v := range t {
		out[k] = v
	}
	for k, v := range over {
		out[k] = v
	}
	return out
}

// dated is a snapshot name: a model name with its release date
// ("gpt-4o-2024-08-06"), priced as the model.
var dated = regexp.MustCompile(`^(.+)-\d{4}-\d{2}-\d{2}$`)

// Lookup finds model's price: its own entry, else its undated name's.
func (t Table) Lookup(model string) (Price, bool) {
	if p, ok := t[model]; ok {
		return p, true
	}
	if m := dated.FindStringSubmatch(model); m != nil {
		p, ok := t[m[1]]
		return p, ok
	}
	return Price{}, false
}

// Cost is the estimated cost of usage on model; false when the model has
// no price. Providers count cached tokens inside input_tokens and
// reasoning tokens inside output_tokens (OpenAI's usage fields, which
// grove's TokenUsage carries), so cached tokens are billed at cache_read
// instead of input and reasoning is not billed twice.
func (t Table) Cost(model string, u protocol.TokenUsage) (float64, bool) {
	p, ok := t.Lookup(model)
	if !ok {
		return 0, false
	}
	cached := min(max(u.CachedInputTokens, 0), max(u.InputTokens, 0))
	uncached := max(u.InputTokens, 0) - cached
	usd := (float64(uncached)*p.Input + float64(cached)*p.CacheRead + float64(max(u.OutputTokens, 0))*p.Output) / 1e6
	return usd, true
}
