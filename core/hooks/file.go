package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/BurntSushi/toml"
)

// DefaultTimeout is a handler's timeout when it names none (Codex: 600 s).
const DefaultTimeout = 600 * time.Second

// Format says which kind of file declared a hook.
type Format string

const (
	FormatHooksJSON      Format = "hooks.json"
	FormatConfigTOML     Format = "config.toml"
	FormatClaudeSettings Format = "claude settings"
)

// Hook is one command handler as declared: its event, its group's matcher
// and where it came from. Trust is filled in by discovery.
type Hook struct {
	Event Event
	// Matcher is the group's matcher; nil (or "", "*") matches every
	// occurrence. Events that ignore matchers have nil here.
	Matcher       *string
	Command       string
	Timeout       time.Duration
	Async         bool
	StatusMessage string
	File          string
	Format        Format
	Scope         Scope
	// Key names the hook in `[hooks.state]`: "<file>:<event>:<group>:<handler>".
	Key string
	// Hash is Codex's sha256 of the normalized declaration.
	Hash string
	// Files are the project files the command names and FilesHash their
	// fingerprint when the hooks were discovered (files.go).
	Files     []string
	FilesHash string
	Trust     Trust
	// Unsandboxed: the user said this hook runs outside the sandbox
	// (`grove_sandbox = "none"` in its [hooks.state] table).
	Unsandboxed bool
}

// handlerDecl is one entry of a group's "hooks" list (Codex's
// HookHandlerConfig field names; Claude Code's are the same).
type handlerDecl struct {
	Type           string  `json:"type"`
	Command        *string `json:"command"`
	CommandWindows *string `json:"commandWindows"`
	Timeout        *int64  `json:"timeout"`
	TimeoutSec     *int64  `json:"timeoutSec"`
	Async          bool    `json:"async"`
	StatusMessage  *string `json:"statusMessage"`
}

type groupDecl struct {
	Matcher *string           `json:"matcher"`
	Hooks   []json.RawMessage `json:"hooks"`
}

// parseHooksJSON reads a Codex hooks.json: {"description"?, "hooks": {...}}.
// Codex rejects other top-level keys, so a typo is an error, not ignored.
func parseHooksJSON(path string, scope Scope) ([]Hook, []string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("read hooks file %s: %w", path, err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, nil, fmt.Errorf("parse hooks file %s: %w", path, err)
	}
	for k := range top {
		if k != "hooks" && k != "description" {
			return nil, nil, fmt.Errorf("parse hooks file %s: unknown field %q (expected hooks, description)", path, k)
		}
	}
	return parseEvents(top["hooks"], path, FormatHooksJSON, scope)
}

// parseClaudeSettings reads the "hooks" table of a Claude Code
// settings.json; its other keys (permissions, env, ...) are not grove's.
func parseClaudeSettings(path string, scope Scope) ([]Hook, []string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("read Claude settings %s: %w", path, err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, nil, fmt.Errorf("parse Claude settings %s: %w", path, err)
	}
	return parseEvents(top["hooks"], path, FormatClaudeSettings, scope)
}

// parseConfigTOML reads inline `[hooks]` tables of a config.toml; the
// `state` sub-table is trust state, not an event.
func parseConfigTOML(path string, scope Scope) ([]Hook, []string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("read config %s: %w", path, err)
	}
	var tree map[string]any
	if _, err := toml.Decode(string(data), &tree); err != nil {
		return nil, nil, fmt.Errorf("parse config %s: %w", path, err)
	}
	h, _ := tree["hooks"].(map[string]any)
	if len(h) == 0 {
		return nil, nil, nil
	}
	events := map[string]any{}
	for k, v := range h {
		if k != "state" {
			events[k] = v
		}
	}
	raw, err := json.Marshal(events)
	if err != nil {
		return nil, nil, fmt.Errorf("config %s: [hooks]: %w", path, err)
	}
	return parseEvents(raw, path, FormatConfigTOML, scope)
}

// parseEvents turns {"PreToolUse": [groups...], ...} into hooks. An
// unknown event or handler type is a warning naming the file (Claude Code
// has events grove does not fire); a malformed group is an error.
func parseEvents(raw json.RawMessage, path string, format Format, scope Scope) ([]Hook, []string, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil, nil
	}
	var byEvent map[string][]groupDecl
	if err := json.Unmarshal(raw, &byEvent); err != nil {
		return nil, nil, fmt.Errorf("%s %s: hooks: %w", format, path, err)
	}
	names := make([]string, 0, len(byEvent))
	for n := range byEvent {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []Hook
	var warnings []string
	// Declaration order follows Codex's event order, not the map's.
	for _, ev := range Events {
		groups, ok := byEvent[string(ev)]
		if !ok {
			continue
		}
		hs, ws, err := parseGroups(ev, groups, path, format, scope)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, hs...)
		warnings = append(warnings, ws...)
	}
	for _, n := range names {
		if _, ok := knownEvent(n); !ok {
			warnings = append(warnings, fmt.Sprintf("%s: event %q is not one grove fires; its hooks are ignored", path, n))
		}
	}
	return out, warnings, nil
}

func parseGroups(ev Event, groups []groupDecl, path string, format Format, scope Scope) ([]Hook, []string, error) {
	var out []Hook
	var warnings []string
	for gi, g := range groups {
		matcher := g.Matcher
		if !ev.usesMatcher() {
			matcher = nil
		}
		if matcher != nil {
			if err := validateMatcher(*matcher); err != nil {
				warnings = append(warnings, fmt.Sprintf("%s: %s group %d: invalid matcher %q: %v (group skipped)", path, ev, gi, *matcher, err))
				continue
			}
		}
		for hi, rawH := range g.Hooks {
			h, warn, err := parseHandler(rawH)
			if err != nil {
				return nil, nil, fmt.Errorf("%s %s: %s group %d hook %d: %w", format, path, ev, gi, hi, err)
			}
			if warn != "" {
				warnings = append(warnings, fmt.Sprintf("%s: %s group %d hook %d: %s", path, ev, gi, hi, warn))
				continue
			}
			h.Event, h.Matcher, h.File, h.Format, h.Scope = ev, matcher, path, format, scope
			h.Key = fmt.Sprintf("%s:%s:%d:%d", path, ev.label(), gi, hi)
			h.Hash = hookHash(h)
			out = append(out, h)
		}
	}
	return out, warnings, nil
}

// parseHandler reads one handler. Prompt, agent and other non-command
// handlers are skipped with a warning, as Codex does.
func parseHandler(raw json.RawMessage) (Hook, string, error) {
	var d handlerDecl
	if err := json.Unmarshal(raw, &d); err != nil {
		return Hook{}, "", err
	}
	if d.Type != "command" {
		if d.Type == "" {
			return Hook{}, "", errors.New(`missing "type" (expected "command")`)
		}
		return Hook{}, fmt.Sprintf("%s hooks are not supported (skipped)", d.Type), nil
	}
	if d.Command == nil {
		return Hook{}, "", errors.New(`command hook without "command"`)
	}
	if len(bytes.TrimSpace([]byte(*d.Command))) == 0 {
		return Hook{}, "empty command (skipped)", nil
	}
	secs := int64(DefaultTimeout / time.Second)
	switch {
	case d.Timeout != nil:
		secs = *d.Timeout
	case d.TimeoutSec != nil:
		secs = *d.TimeoutSec
	}
	if secs < 1 {
		secs = 1
	}
	h := Hook{Command: *d.Command, Timeout: time.Duration(secs) * time.Second, Async: d.Async}
	if d.StatusMessage != nil {
		h.StatusMessage = *d.StatusMessage
	}
	return h, "", nil
}
