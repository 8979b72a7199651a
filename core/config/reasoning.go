package config

import (
	"fmt"

	"github.com/grovecli/grove/protocol"
)

// checkReasoning refuses a reasoning effort or summary the model API would
// reject (or, worse, silently ignore), naming the key, as Codex refuses
// them when it reads config.toml: a typo must not reach every request.
func (c *Config) checkReasoning() error {
	if c.ReasoningEffort != "" && !protocol.ReasoningEfforts[c.ReasoningEffort] {
		return fmt.Errorf("model_reasoning_effort %q: expected none, minimal, low, medium, high or xhigh", c.ReasoningEffort)
	}
	if c.ReasoningSummary != "" && !protocol.ReasoningSummaries[c.ReasoningSummary] {
		return fmt.Errorf("model_reasoning_summary %q: expected auto, concise, detailed or none", c.ReasoningSummary)
	}
	return nil
}
