package appserver

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/grovecli/grove/core/logging"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
)

// ModelEntry is Codex's Model (model/list).
type ModelEntry struct {
	ID           string `json:"id"`
	Model        string `json:"model"`
	DisplayName  string `json:"displayName"`
	Description  string `json:"description"`
	IsDefault    bool   `json:"isDefault"`
	ShowInPicker bool   `json:"showInPicker"`
	// Hidden, InputModalities and SupportsPersonality are required by
	// Codex 0.169's Model (hidden = !showInPicker).
	Hidden                    bool           `json:"hidden"`
	InputModalities           []string       `json:"inputModalities"`
	SupportsPersonality       bool           `json:"supportsPersonality"`
	DefaultReasoningEffort    string         `json:"defaultReasoningEffort"`
	SupportedReasoningEfforts []EffortOption `json:"supportedReasoningEfforts"`
}

// EffortOption is Codex's ReasoningEffortOption.
type EffortOption struct {
	ReasoningEffort string `json:"reasoningEffort"`
	Description     string `json:"description"`
}

// standardEfforts are offered when the provider does not say which efforts
// a model supports (its /models has no such field, or no list).
var standardEfforts = []string{"low", "medium", "high"}

// modelsTimeout bounds the provider's GET /models during model/list: an
// IDE's startup waits for it.
const modelsTimeout = 10 * time.Second

// listModels answers model/list: the configured model first (the default),
// then the models the config names (agent model aliases), then the
// provider's /models. A provider without a list, or unreachable, leaves the
// configured ones (logged, not an error: the IDE still starts).
func (h *Host) listModels(ctx context.Context) []ModelEntry {
	hc, prov := h.view()
	effort := "medium"
	if hc != nil && protocol.ReasoningEfforts[hc.ReasoningEffort] {
		effort = hc.ReasoningEffort
	}
	var out []ModelEntry
	seen := map[string]bool{}
	add := func(id, desc string, efforts []string, isDefault bool) {
		if id == "" || seen[id] {
			return
		}
		seen[id] = true
		opts := []EffortOption{}
		for _, e := range efforts {
			if protocol.ReasoningEfforts[e] {
				opts = append(opts, EffortOption{ReasoningEffort: e, Description: e + " reasoning effort"})
			}
		}
		if len(opts) == 0 {
			for _, e := range standardEfforts {
				opts = append(opts, EffortOption{ReasoningEffort: e, Description: e + " reasoning effort"})
			}
		}
		out = append(out, ModelEntry{ID: id, Model: id, DisplayName: id, Description: desc, IsDefault: isDefault,
			ShowInPicker: true, DefaultReasoningEffort: effort, SupportedReasoningEfforts: opts,
			InputModalities: []string{"text", "image"}})
	}
	provider := prov.Name
	add(prov.Model, fmt.Sprintf("configured model (provider %s)", provider), nil, true)
	if hc != nil {
		aliases := make([]string, 0, len(hc.Agents.ModelAliases))
		for alias := range hc.Agents.ModelAliases {
			aliases = append(aliases, alias)
		}
		sort.Strings(aliases)
		for _, alias := range aliases {
			add(hc.Agents.ModelAliases[alias], fmt.Sprintf("agents.model_aliases.%s", alias), nil, false)
		}
	}
	lister := h.lister()
	if lister == nil {
		return out
	}
	cctx, cancel := context.WithTimeout(ctx, modelsTimeout)
	defer cancel()
	list, err := lister.Models(cctx)
	if err != nil {
		if !errors.Is(err, model.ErrModelsUnsupported) {
			logging.L().Warn("app-server: model/list: provider models unavailable", "provider", provider, "err", err)
		}
		return out
	}
	for _, m := range list {
		add(m.ID, fmt.Sprintf("from provider %s", provider), m.ReasoningEfforts, false)
	}
	return out
}

// ModelIDs lists the models model/list offers, by id (ACP's session
// models).
func (h *Host) ModelIDs(ctx context.Context) []string {
	var ids []string
	for _, m := range h.listModels(ctx) {
		ids = append(ids, m.ID)
	}
	return ids
}
