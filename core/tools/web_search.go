package tools

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/grovecli/grove/core/model"
)

// Web search is the Responses API's hosted tool: the provider searches and
// the reply carries web_search_call items (shown and recorded, never run
// by grove). Codex's web_search config picks the mode: "cached" searches
// OpenAI's index only (external_web_access false), "live" the live web.

// Web search modes (Codex's WebSearchMode).
const (
	WebSearchDisabled = "disabled"
	WebSearchCached   = "cached"
	WebSearchLive     = "live"
)

// ParseWebSearch reads a web_search value; Codex's older boolean
// tools.web_search = true means live.
func ParseWebSearch(v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "", nil
	case bool:
		if x {
			return WebSearchLive, nil
		}
		return WebSearchDisabled, nil
	case string:
		switch s := strings.ToLower(strings.TrimSpace(x)); s {
		case "", WebSearchDisabled, WebSearchCached, WebSearchLive:
			return s, nil
		}
		return "", fmt.Errorf("web_search %q: expected disabled, cached or live", x)
	}
	return "", fmt.Errorf("web_search: expected disabled, cached or live, got %T", v)
}

// WebSearchOptions shape the hosted tool (Codex's [tools.web_search]).
type WebSearchOptions struct {
	AllowedDomains []string
	ContextSize    string            // low, medium, high
	Location       map[string]string // city, country, region, timezone
}

// hostedWebSearch is the Responses web_search tool.
type hostedWebSearch struct {
	Type              string `json:"type"`
	ExternalWebAccess bool   `json:"external_web_access"`
	Filters           *struct {
		AllowedDomains []string `json:"allowed_domains"`
	} `json:"filters,omitempty"`
	SearchContextSize string            `json:"search_context_size,omitempty"`
	UserLocation      map[string]string `json:"user_location,omitempty"`
}

// webSearchSpec is the hosted tool for a mode, if it offers one.
func webSearchSpec(mode string, o WebSearchOptions) (model.ToolSpec, bool) {
	h := hostedWebSearch{Type: "web_search", SearchContextSize: o.ContextSize}
	switch mode {
	case WebSearchCached:
	case WebSearchLive:
		h.ExternalWebAccess = true
	default:
		return model.ToolSpec{}, false
	}
	if len(o.AllowedDomains) > 0 {
		h.Filters = &struct {
			AllowedDomains []string `json:"allowed_domains"`
		}{o.AllowedDomains}
	}
	if len(o.Location) > 0 {
		h.UserLocation = map[string]string{"type": "approximate"}
		for k, v := range o.Location {
			h.UserLocation[k] = v
		}
	}
	hosted, _ := json.Marshal(h)
	return model.ToolSpec{Name: "web_search", Description: "Searches the web (hosted by the provider; " + mode + ").", Hosted: hosted}, true
}
