package appserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/grovecli/grove/core/config"
	"github.com/grovecli/grove/core/logging"
	"github.com/grovecli/grove/protocol"
)

// config/value/write and config/batchWrite edit the user layer: grove's
// config.toml, in place (comments and other keys kept), atomically. The
// host reloads it at once (Host.Reload): config/read, model/list and
// every thread started afterwards use the new values. Loaded threads keep
// their model, effort, approval policy and sandbox, as Codex's do (its
// reloadUserConfig refreshes a thread's config layers, not the session
// settings it started with).

type configEditParams struct {
	KeyPath       string          `json:"keyPath"`
	Value         json.RawMessage `json:"value"`
	MergeStrategy string          `json:"mergeStrategy"`
}

type configValueWriteParams struct {
	configEditParams
	FilePath        *string `json:"filePath"`
	ExpectedVersion *string `json:"expectedVersion"`
}

type configBatchWriteParams struct {
	Edits            []configEditParams `json:"edits"`
	FilePath         *string            `json:"filePath"`
	ExpectedVersion  *string            `json:"expectedVersion"`
	ReloadUserConfig bool               `json:"reloadUserConfig"`
}

// ConfigWrite is Codex's ConfigWriteResponse.
type ConfigWrite struct {
	Status             string              `json:"status"`
	Version            string              `json:"version"`
	FilePath           string              `json:"filePath"`
	OverriddenMetadata *OverriddenMetadata `json:"overriddenMetadata"`
}

// OverriddenMetadata is Codex's: the written value is not the effective
// one because a higher layer (grove's -c overrides) sets the key.
type OverriddenMetadata struct {
	Message         string          `json:"message"`
	OverridingLayer ConfigLayerMeta `json:"overridingLayer"`
	EffectiveValue  any             `json:"effectiveValue"`
}

func (s *Server) configValueWrite(p configValueWriteParams) (any, *protocol.RPCError) {
	return s.configWrite([]configEditParams{p.configEditParams}, p.FilePath, p.ExpectedVersion)
}

func (s *Server) configBatchWrite(p configBatchWriteParams) (any, *protocol.RPCError) {
	if len(p.Edits) == 0 {
		return nil, missing("edits")
	}
	return s.configWrite(p.Edits, p.FilePath, p.ExpectedVersion)
}

// configWriteError is Codex's: invalid request, the code in data.
func configWriteError(code, msg string) *protocol.RPCError {
	e := rpcError(protocol.RPCInvalidRequest, "%s", msg)
	e.Data = map[string]any{"config_write_error_code": code}
	return e
}

func (s *Server) configWrite(params []configEditParams, filePath, expected *string) (any, *protocol.RPCError) {
	h, rerr := s.host()
	if rerr != nil {
		return nil, rerr
	}
	if h.ConfigFile == "" {
		return nil, configWriteError("userLayerNotFound", "no user config file to write: grove writes an existing $GROVE_HOME/config.toml only (a missing one would shadow Codex's config.toml)")
	}
	if filePath != nil && *filePath != "" && filepath.Clean(*filePath) != filepath.Clean(h.ConfigFile) {
		return nil, configWriteError("configLayerReadonly", "Only writes to the user config are allowed")
	}
	edits := make([]config.ValueEdit, 0, len(params))
	for _, p := range params {
		e, rerr := p.edit()
		if rerr != nil {
			return nil, rerr
		}
		edits = append(edits, e)
	}
	h.writeMu.Lock()
	defer h.writeMu.Unlock()
	cur, err := os.ReadFile(h.ConfigFile)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, rpcError(protocol.RPCInternalError, "read config %s: %v", h.ConfigFile, err)
	}
	if expected != nil && *expected != fingerprint(cur) {
		// Codex's words (config_rpc.rs config_value_write_rejects_version_conflict).
		return nil, configWriteError("configVersionConflict", "Configuration was modified since last read. Fetch latest version and retry.")
	}
	out, err := config.EditValuesChecked(h.ConfigFile, edits, h.Check)
	if err != nil {
		var ee *config.EditError
		if errors.As(err, &ee) {
			return nil, configWriteError(ee.Code, ee.Message)
		}
		return nil, rpcError(protocol.RPCInternalError, "write config: %v", err)
	}
	if err := h.reload(); err != nil {
		// Check passed, so only the environment (a key's variable unset
		// since) fails it: the file is written; the answers keep the
		// previous settings and a new thread's start says why.
		logging.L().Warn("app-server: config written but not reloaded", "file", h.ConfigFile, "err", err)
	}
	resp := ConfigWrite{Status: "ok", Version: fingerprint(out), FilePath: h.ConfigFile}
	if md := h.overridden(edits); md != nil {
		resp.Status, resp.OverriddenMetadata = "okOverridden", md
	}
	return resp, nil
}

// edit decodes one edit's JSON value (whole numbers become integers: TOML
// keeps the two apart).
func (p configEditParams) edit() (config.ValueEdit, *protocol.RPCError) {
	if p.KeyPath == "" {
		return config.ValueEdit{}, missing("keyPath")
	}
	e := config.ValueEdit{KeyPath: p.KeyPath}
	switch p.MergeStrategy {
	case "replace":
	case "upsert":
		e.Upsert = true
	default:
		return e, rpcError(protocol.RPCInvalidParams, "invalid params: mergeStrategy: unknown variant `%s`, expected `replace` or `upsert`", p.MergeStrategy)
	}
	if len(p.Value) > 0 {
		dec := json.NewDecoder(bytes.NewReader(p.Value))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return e, rpcError(protocol.RPCInvalidParams, "invalid params: value: %v", err)
		}
		e.Value = tomlValue(v)
	}
	return e, nil
}

func tomlValue(v any) any {
	switch t := v.(type) {
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		f, _ := t.Float64()
		return f
	case []any:
		for i := range t {
			t[i] = tomlValue(t[i])
		}
	case map[string]any:
		for k := range t {
			t[k] = tomlValue(t[k])
		}
	}
	return v
}

// overridden says when a -c override sets a written key (or a key under
// it): the file holds the value, the session keeps the override.
func (h *Host) overridden(edits []config.ValueEdit) *OverriddenMetadata {
	for _, e := range edits {
		for _, o := range h.Overrides {
			k, v, _ := strings.Cut(o, "=")
			k = strings.TrimSpace(k)
			if k == e.KeyPath || strings.HasPrefix(k, e.KeyPath+".") {
				layer := ConfigLayerMeta{Name: ConfigLayerSource{Type: "sessionFlags"}, Version: fingerprint([]byte(strings.Join(h.Overrides, "\n")))}
				return &OverriddenMetadata{Message: "Overridden by session flags (-c " + k + ")", OverridingLayer: layer, EffectiveValue: overrideValue(strings.TrimSpace(v))}
			}
		}
	}
	return nil
}

// overrideValue is a -c value as config/read shows it: TOML when it parses
// as TOML, else the bare string.
func overrideValue(raw string) any {
	tree := map[string]any{}
	setDotted(tree, "v", raw)
	return tree["v"]
}
