package appserver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"

	"github.com/grovecli/grove/core/config"
	"github.com/grovecli/grove/core/mcp"
	"github.com/grovecli/grove/core/model"
)

// Host is what the server knows about the installation rather than about a
// thread: the configuration, the provider and the MCP servers. An IDE asks
// for it at startup (account/read, config/read, model/list,
// mcpServerStatus/list) before it starts a thread.
type Host struct {
	// Config is the effective configuration (file, then -c overrides).
	Config *config.Config
	// ConfigFile is the file Config was read from ("" = none).
	ConfigFile string
	// Overrides are the -c key=value overrides (and flags turned into
	// them), the session-flags layer of config/read.
	Overrides []string
	// Provider is the resolved model provider.
	Provider config.Resolved
	// Models lists the provider's models (GET /models); nil when there is
	// no provider to ask (the demo).
	Models ModelLister
	// MCPStatus lists the MCP servers of the sessions this process runs.
	MCPStatus func() []mcp.ServerStatus

	// Reload reads the configuration, the provider and its model list
	// again, as a new thread would; config/value/write and
	// config/batchWrite call it so config/read, model/list and
	// account/read answer with the written values (Codex reads its config
	// per request). nil keeps what the host was given.
	Reload func() (Loaded, error)
	// Check loads a config.toml content as a new thread would load it
	// (the provider resolved too); a write whose result fails it is
	// refused and the file kept. nil checks nothing beyond the edit's own
	// types.
	Check func(content []byte) error

	// writeMu serialises config/value/write and config/batchWrite, so a
	// version check and its write are one step.
	writeMu sync.Mutex
	// mu guards Config, Provider and Models once the server runs: a
	// write replaces them while event pumps read the provider's name.
	mu sync.RWMutex
}

// Loaded is what Reload reads: the Host fields a config write replaces.
type Loaded struct {
	Config   *config.Config
	Provider config.Resolved
	// Models is nil when there is no provider to ask (the demo).
	Models ModelLister
}

// view is the current configuration and provider.
func (h *Host) view() (*config.Config, config.Resolved) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.Config, h.Provider
}

// reload takes the configuration Reload reads (after a config write).
func (h *Host) reload() error {
	if h.Reload == nil {
		return nil
	}
	l, err := h.Reload()
	if err != nil {
		return err
	}
	h.mu.Lock()
	h.Config, h.Provider, h.Models = l.Config, l.Provider, l.Models
	h.mu.Unlock()
	return nil
}

// lister is the current provider's model list (nil: none to ask).
func (h *Host) lister() ModelLister {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.Models
}

// ModelLister is the part of a model client model/list uses.
type ModelLister interface {
	Models(ctx context.Context) ([]model.ModelInfo, error)
}

// Account is Codex's GetAccountResponse.
type Account struct {
	Account            *AccountKind `json:"account"`
	RequiresOpenaiAuth bool         `json:"requiresOpenaiAuth"`
}

// AccountKind is Codex's Account: grove only ever has API keys.
type AccountKind struct {
	Type string `json:"type"`
}

// account answers account/read: an API-key account when the provider's key
// is set, none otherwise; OpenAI itself requires auth.
func (h *Host) account() Account {
	_, prov := h.view()
	a := Account{RequiresOpenaiAuth: !prov.Demo && prov.Name == "openai"}
	if prov.APIKey != "" {
		a.Account = &AccountKind{Type: "apiKey"}
	}
	return a
}

// ConfigLayerSource is Codex's ConfigLayerSource (user file or -c flags).
type ConfigLayerSource struct {
	Type string `json:"type"`
	File string `json:"file,omitempty"`
}

// ConfigLayerMeta is Codex's ConfigLayerMetadata.
type ConfigLayerMeta struct {
	Name    ConfigLayerSource `json:"name"`
	Version string            `json:"version"`
}

// ConfigLayer is Codex's ConfigLayer.
type ConfigLayer struct {
	ConfigLayerMeta
	Config map[string]any `json:"config"`
}

// ConfigRead is Codex's ConfigReadResponse.
type ConfigRead struct {
	Config  map[string]any             `json:"config"`
	Origins map[string]ConfigLayerMeta `json:"origins"`
	Layers  []ConfigLayer              `json:"layers,omitempty"`
}

// readConfig answers config/read: the file's settings with the effective
// values of the keys grove resolves, where each came from, and (asked)
// the layers.
func (h *Host) readConfig(includeLayers bool) (ConfigRead, error) {
	resp := ConfigRead{Config: map[string]any{}, Origins: map[string]ConfigLayerMeta{}}
	var layers []ConfigLayer
	if h.ConfigFile != "" {
		data, err := os.ReadFile(h.ConfigFile)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return resp, fmt.Errorf("read config %s: %w", h.ConfigFile, err)
		}
		if err == nil {
			tree := map[string]any{}
			if _, err := toml.Decode(string(data), &tree); err != nil {
				return resp, fmt.Errorf("config %s: %w", h.ConfigFile, err)
			}
			redact(tree)
			meta := ConfigLayerMeta{Name: ConfigLayerSource{Type: "user", File: h.ConfigFile}, Version: fingerprint(data)}
			layers = append(layers, ConfigLayer{ConfigLayerMeta: meta, Config: tree})
		}
	}
	// The session-flags layer is always there, empty without -c (Codex:
	// config_rpc.rs config_read_returns_effective_and_layers).
	tree := map[string]any{}
	for _, o := range h.Overrides {
		k, v, _ := strings.Cut(o, "=")
		setDotted(tree, strings.TrimSpace(k), strings.TrimSpace(v))
	}
	redact(tree)
	meta := ConfigLayerMeta{Name: ConfigLayerSource{Type: "sessionFlags"}, Version: fingerprint([]byte(strings.Join(h.Overrides, "\n")))}
	layers = append(layers, ConfigLayer{ConfigLayerMeta: meta, Config: tree})
	for _, l := range layers { // later layers win
		merge(resp.Config, l.Config)
		for _, k := range leafKeys("", l.Config) {
			resp.Origins[k] = l.ConfigLayerMeta
		}
	}
	h.effective(resp.Config)
	if includeLayers {
		// Codex lists layers highest precedence first.
		for i := len(layers) - 1; i >= 0; i-- {
			resp.Layers = append(resp.Layers, layers[i])
		}
	}
	return resp, nil
}

// effective sets the keys grove resolves (defaults included) to the values
// a new thread will use.
func (h *Host) effective(out map[string]any) {
	c, prov := h.view()
	if c == nil {
		return
	}
	set := func(k, v string) {
		if v != "" {
			out[k] = v
		}
	}
	if !prov.Demo {
		// The offline demo is no configured model: reporting grove-demo
		// would show it as the user's choice.
		set("model", prov.Model)
		set("model_provider", prov.Name)
	}
	set("approval_policy", codexApproval(c.ApprovalPolicy)) // Codex 0.169 has no on-failure
	set("sandbox_mode", string(c.SandboxMode))
	set("model_reasoning_effort", c.ReasoningEffort)
	set("instructions", c.Instructions)
}

// fingerprint versions a layer (Codex: an opaque string that changes with
// the content).
func fingerprint(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// setDotted sets a dotted key (a -c override) in tree; the value is TOML
// when it parses as one, else the bare string (as config.Load reads it).
func setDotted(tree map[string]any, key, raw string) {
	var v struct{ V any }
	val := any(raw)
	if _, err := toml.Decode("V = "+raw, &v); err == nil {
		val = v.V
	}
	parts := strings.Split(key, ".")
	cur := tree
	for _, p := range parts[:len(parts)-1] {
		next, ok := cur[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[p] = next
		}
		cur = next
	}
	cur[parts[len(parts)-1]] = val
}

// merge copies src over dst, table by table.
func merge(dst, src map[string]any) {
	for k, v := range src {
		if sv, ok := v.(map[string]any); ok {
			if dv, ok := dst[k].(map[string]any); ok {
				merge(dv, sv)
				continue
			}
			cp := map[string]any{}
			merge(cp, sv)
			dst[k] = cp
			continue
		}
		dst[k] = v
	}
}

// leafKeys lists the dotted paths of a tree's values, sorted.
func leafKeys(prefix string, tree map[string]any) []string {
	var out []string
	for k, v := range tree {
		path := k
		if prefix != "" {
			path = prefix + "." + k
		}
		if sub, ok := v.(map[string]any); ok && len(sub) > 0 {
			out = append(out, leafKeys(path, sub)...)
			continue
		}
		out = append(out, path)
	}
	sort.Strings(out)
	return out
}
