package app

import (
	"fmt"

	"github.com/grovecli/grove/core/config"
	"github.com/grovecli/grove/core/tools"
)

// ToolConfig reads the config keys that decide the tools each model is
// offered: tool_family, web_search and [tools.web_search].
func ToolConfig(cfg *config.Config) (tools.ToolConfig, error) {
	fam, err := tools.ParseFamily(cfg.ToolFamily)
	if err != nil {
		return tools.ToolConfig{}, fmt.Errorf("%s: %w", configName(cfg), err)
	}
	mode, opts, err := cfg.WebSearch()
	if err != nil {
		return tools.ToolConfig{}, fmt.Errorf("%s: %w", configName(cfg), err)
	}
	tc := tools.ToolConfig{Family: fam, WebSearch: mode, NoLoginShell: !cfg.AllowLoginShell()}
	tc.WebSearchOptions.AllowedDomains = opts.AllowedDomains
	tc.WebSearchOptions.ContextSize = opts.ContextSize
	if l := opts.Location; l != nil {
		tc.WebSearchOptions.Location = map[string]string{}
		for k, v := range map[string]string{"city": l.City, "country": l.Country, "region": l.Region, "timezone": l.Timezone} {
			if v != "" {
				tc.WebSearchOptions.Location[k] = v
			}
		}
	}
	return tc, nil
}

// configName names the config in an error ("the config" with no file).
func configName(cfg *config.Config) string {
	if cfg.Source == "" {
		return "config"
	}
	return cfg.Source
}
