package config

import (
	"fmt"
	"strings"
)

// Web search is Codex's: `web_search = "disabled" | "cached" | "live"`,
// the older boolean `tools.web_search = true` (live), and the newer
// `[tools.web_search]` table that shapes the hosted tool (allowed
// domains, context size, approximate location).

// WebSearchTool is `[tools.web_search]` (Codex's WebSearchToolConfig).
type WebSearchTool struct {
	AllowedDomains []string           `toml:"allowed_domains" json:"allowed_domains,omitempty"`
	ContextSize    string             `toml:"context_size" json:"context_size,omitempty"`
	Location       *WebSearchLocation `toml:"location" json:"location,omitempty"`
}

// WebSearchLocation is the user's approximate location for searches.
type WebSearchLocation struct {
	City     string `toml:"city" json:"city,omitempty"`
	Country  string `toml:"country" json:"country,omitempty"`
	Region   string `toml:"region" json:"region,omitempty"`
	Timezone string `toml:"timezone" json:"timezone,omitempty"`
}

// ToolsTable is Codex's `[tools]` (only web_search is grove's).
type ToolsTable struct {
	WebSearch webSearchSetting `toml:"web_search"`
}

// webSearchSetting holds tools.web_search as written: a bool (older
// Codex) or a WebSearchTool table. Decoding it whole marks its keys read.
type webSearchSetting struct{ v any }

// UnmarshalTOML keeps the value for WebSearch to check.
func (w *webSearchSetting) UnmarshalTOML(v any) error {
	w.v = v
	return nil
}

// WebSearch is the effective web search mode ("disabled", "cached" or
// "live") and the hosted tool's options, or an error naming the key.
func (c *Config) WebSearch() (string, WebSearchTool, error) {
	var opts WebSearchTool
	mode := ""
	switch v := c.WebSearchMode.(type) {
	case nil:
	case string:
		mode = strings.ToLower(strings.TrimSpace(v))
		if mode != "disabled" && mode != "cached" && mode != "live" {
			return "", opts, fmt.Errorf("web_search = %q: expected \"disabled\", \"cached\" or \"live\"", v)
		}
	default:
		return "", opts, fmt.Errorf("web_search: expected \"disabled\", \"cached\" or \"live\", got %T", v)
	}
	switch v := c.Tools.WebSearch.v.(type) {
	case nil:
	case bool:
		if mode == "" && v {
			mode = "live" // the older switch: on means live search
		}
	case map[string]any:
		o, err := webSearchTable(v)
		if err != nil {
			return "", opts, err
		}
		opts = o
	default:
		return "", opts, fmt.Errorf("tools.web_search: expected true/false or a table, got %T", v)
	}
	if mode == "" {
		mode = "disabled"
	}
	return mode, opts, nil
}

// webSearchTable reads `[tools.web_search]`, naming any key it does not
// know.
func webSearchTable(m map[string]any) (WebSearchTool, error) {
	var o WebSearchTool
	for k, v := range m {
		switch k {
		case "allowed_domains":
			list, ok := v.([]any)
			if !ok {
				return o, fmt.Errorf("tools.web_search.allowed_domains: expected a list of domains")
			}
			for _, d := range list {
				s, ok := d.(string)
				if !ok {
					return o, fmt.Errorf("tools.web_search.allowed_domains: expected strings, got %T", d)
				}
				o.AllowedDomains = append(o.AllowedDomains, s)
			}
		case "context_size":
			s, _ := v.(string)
			if s != "low" && s != "medium" && s != "high" {
				return o, fmt.Errorf("tools.web_search.context_size = %v: expected low, medium or high", v)
			}
			o.ContextSize = s
		case "location":
			loc, err := webSearchLocation(v)
			if err != nil {
				return o, err
			}
			o.Location = loc
		default:
			return o, fmt.Errorf("tools.web_search.%s: unknown key (expected allowed_domains, context_size, location)", k)
		}
	}
	return o, nil
}

func webSearchLocation(v any) (*WebSearchLocation, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("tools.web_search.location: expected a table")
	}
	loc := &WebSearchLocation{}
	for k, x := range m {
		s, ok := x.(string)
		if !ok {
			return nil, fmt.Errorf("tools.web_search.location.%s: expected a string", k)
		}
		switch k {
		case "city":
			loc.City = s
		case "country":
			loc.Country = s
		case "region":
			loc.Region = s
		case "timezone":
			loc.Timezone = s
		default:
			return nil, fmt.Errorf("tools.web_search.location.%s: unknown key (expected city, country, region, timezone)", k)
		}
	}
	return loc, nil
}
