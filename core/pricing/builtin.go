package pricing

// builtin are the prices grove knows without configuration: USD per 1M
// tokens (input / cached input / output), OpenAI's standard tier. Sources,
// read on 2026-11-27:
//   - gpt-4.1, gpt-4.1-mini, gpt-4.1-nano, gpt-4o: OpenAI's pricing page
//     as of 2025-06-03, as hex.pm's openai_responses 0.4.1
//     (lib/responses/pricing.ex) lists it;
//   - gpt-4.1, gpt-5-mini and gpt-5.2 again in GitHub's
//     github/docs data/tables/copilot/models-and-pricing.yml;
//   - gpt-5, gpt-5-nano, gpt-4o-mini, o3, o4-mini: charmbracelet/catwalk
//     internal/providers/configs/openai.json (commit 0029fc4b; it rounds
//     gpt-5's cached price, a tenth of input, to 0.13).
//
// Prices change: [model_prices."<model>"] in config.toml overrides or
// adds any model, and a model in neither has no cost shown.
var builtin = Table{
	"gpt-5":        {Input: 1.25, CacheRead: 0.125, Output: 10},
	"gpt-5-mini":   {Input: 0.25, CacheRead: 0.025, Output: 2},
	"gpt-5-nano":   {Input: 0.05, CacheRead: 0.005, Output: 0.40},
	"gpt-5.2":      {Input: 1.75, CacheRead: 0.175, Output: 14},
	"gpt-4.1":      {Input: 2, CacheRead: 0.50, Output: 8},
	"gpt-4.1-mini": {Input: 0.40, CacheRead: 0.10, Output: 1.60},
	"gpt-4.1-nano": {Input: 0.10, CacheRead: 0.025, Output: 0.40},
	"gpt-4o":       {Input: 2.50, CacheRead: 1.25, Output: 10},
	"gpt-4o-mini":  {Input: 0.15, CacheRead: 0.075, Output: 0.60},
	"o3":           {Input: 2, CacheRead: 0.50, Output: 8},
	"o4-mini":      {Input: 1.10, CacheRead: 0.275, Output: 4.40},
}

// Builtin returns a copy of the built-in table.
func Builtin() Table { return Table{}.With(builtin) }
