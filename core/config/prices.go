package config

import (
	"fmt"
	"sort"

	"github.com/grovecli/grove/core/pricing"
)

// ModelPrice is one [model_prices."<model>"] table: USD per 1M tokens,
// named as opencode's model "cost" object is. input and output are
// required; cache_read defaults to input (no cache discount assumed).
type ModelPrice struct {
	Input     *float64 `toml:"input"`
	CacheRead *float64 `toml:"cache_read"`
	Output    *float64 `toml:"output"`
}

// Prices is the pricing table: grove's built-in prices with the
// configured ones added or replacing them. A bad entry is an error naming
// it, never a silently wrong cost.
func (c *Config) Prices() (pricing.Table, error) {
	names := make([]string, 0, len(c.ModelPrices))
	for name := range c.ModelPrices {
		names = append(names, name)
	}
	sort.Strings(names)
	over := pricing.Table{}
	for _, name := range names {
		mp := c.ModelPrices[name]
		if mp.Input == nil || mp.Output == nil {
			return nil, fmt.Errorf("model_prices.%q: input and output are required (USD per 1M tokens)", name)
		}
		p := pricing.Price{Input: *mp.Input, CacheRead: *mp.Input, Output: *mp.Output}
		if mp.CacheRead != nil {
			p.CacheRead = *mp.CacheRead
		}
		if err := p.Check(); err != nil {
			return nil, fmt.Errorf("model_prices.%q: %w", name, err)
		}
		over[name] = p
	}
	return pricing.Builtin().With(over), nil
}
