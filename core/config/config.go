// Package config loads $GROVE_HOME/config.toml, applies `-c key=value`
// overrides and resolves the model provider. API keys are read from the
// environment only; nothing here writes them anywhere.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/grovecli/grove/protocol"
)

// Config is the whole user configuration.
type Config struct {
	Model           string `toml:"model"`
	ModelProvider   string `toml:"model_provider"`
	ReasoningEffort string `toml:"model_reasoning_effort"`
	// ReasoningSummary is asked with every turn's reasoning ("" = auto,
	// "none" asks for none), as Codex's model_reasoning_summary.
	ReasoningSummary string                    `toml:"model_reasoning_summary"`
	ModelProviders   map[string]ProviderConfig `toml:"model_providers"`
	// ModelContextWindow overrides the model's context window (tokens);
	// ModelAutoCompactTokenLimit is the history size that triggers an
	// automatic compaction (default 90% of the window). Codex's keys.
	ModelContextWindow         int64 `toml:"model_context_window"`
	ModelAutoCompactTokenLimit int64 `toml:"model_auto_compact_token_limit"`
	// ModelPrices price models for the cost shown per agent (prices.go).
	ModelPrices map[string]ModelPrice `toml:"model_prices"`
	// ApprovalPolicy is the effective policy; Approval is what the file
	// says (a name or Codex's granular table, approval.go).
	ApprovalPolicy protocol.ApprovalPolicy `toml:"-"`
	Approval       ApprovalSetting         `toml:"approval_policy"`
	SandboxMode    protocol.SandboxMode    `toml:"sandbox_mode"`
	WorkspaceWrite WorkspaceWrite          `toml:"sandbox_workspace_write"`
	Instructions   string                  `toml:"instructions"`
	// DeveloperInstructions (Codex's key) are added to every agent's
	// instructions; ModelInstructionsFile replaces grove's base prompt with
	// the file's text (ModelInstructions, read at load).
	DeveloperInstructions string `toml:"developer_instructions"`
	ModelInstructionsFile string `toml:"model_instructions_file"`
	// ExperimentalInstructionsFile is the key's older Codex name, still
	// read when model_instructions_file is not set.
	ExperimentalInstructionsFile string `toml:"experimental_instructions_file"`
	ModelInstructions            string `toml:"-"`
	// Notify is Codex's `notify`: a program run after each root turn with
	// the agent-turn-complete JSON as its last argument.
	Notify []string `toml:"notify"`
	// OpenAIBaseURL is Codex's openai_base_url (OPENAI_BASE_URL wins).
	OpenAIBaseURL string `toml:"openai_base_url"`
	// Profile is Codex's `profile`: the [profiles.<name>] table laid over
	// the top level (-p/--profile picks another).
	Profile string `toml:"profile"`
	Agents  Agents `toml:"agents"`
	// AgentMaxThreads is seed 000's spelling of agents.max_threads.
	AgentMaxThreads *int `toml:"agent_max_threads"`
	// Subagent is seed 004's SubagentConfig (subagent.go).
	Subagent   Subagent             `toml:"subagent"`
	TUI        TUI                  `toml:"tui"`
	Exec       Exec                 `toml:"exec"`
	MCPServers map[string]MCPServer `toml:"mcp_servers"`
	// Hosts are the machines tools may run on (see hosts.go).
	Hosts map[string]Host `toml:"hosts"`
	// ShellEnvironment filters the environment commands see.
	ShellEnvironment ShellEnvironmentPolicy `toml:"shell_environment_policy"`
	// AllowLoginShellSetting is Codex's allow_login_shell (unset: true);
	// read it through AllowLoginShell.
	AllowLoginShellSetting *bool `toml:"allow_login_shell"`
	// Hooks holds inline hooks and `[hooks.state]` reviews; core/hooks
	// reads them from the file itself (it needs their file and keys).
	Hooks map[string]any `toml:"hooks"`
	// Projects is `[projects."<root>"]`: trust_level = "trusted" lets the
	// project's hooks load.
	Projects map[string]Project `toml:"projects"`
	// ToolFamily forces the tools every model is offered: "codex",
	// "grove" (or a family another file adds); "" or "auto" picks by
	// model name (core/tools/toolset.go).
	ToolFamily string `toml:"tool_family"`
	// WebSearchMode is Codex's web_search; Tools holds its [tools] table
	// (web_search.go).
	WebSearchMode any        `toml:"web_search"`
	Tools         ToolsTable `toml:"tools"`

	// Home is $GROVE_HOME (not a config key).
	Home string `toml:"-"`
	// Source is the file the settings came from ("" when there was none);
	// FromCodex says it is Codex's ($CODEX_HOME/config.toml). LookedAt
	// lists the files looked for, for errors about what is missing.
	Source    string   `toml:"-"`
	FromCodex bool     `toml:"-"`
	LookedAt  []string `toml:"-"`
	// Warnings lists unknown keys and other non-fatal problems.
	Warnings []string `toml:"-"`
	// UserAgentsMD is the user's global instructions file,
	// $CODEX_HOME/AGENTS.override.md or else AGENTS.md (Codex's), read
	// whether or not Codex's config.toml exists unless grove's own config
	// is in use; UserAgentsMDPath names it. It reaches the model in the
	// user-role AGENTS.md block, as in Codex.
	UserAgentsMD     string `toml:"-"`
	UserAgentsMDPath string `toml:"-"`
}

// ProviderConfig is one `[model_providers.<name>]` table.
type ProviderConfig struct {
	Name    string `toml:"name"`
	BaseURL string `toml:"base_url"`
	EnvKey  string `toml:"env_key"`
	// EnvKeyInstructions say how to get a key (shown when EnvKey is unset).
	EnvKeyInstructions string `toml:"env_key_instructions"`
	// BearerToken is Codex's experimental_bearer_token: a key written in
	// the config itself (env_key is preferred).
	BearerToken string            `toml:"experimental_bearer_token"`
	WireAPI     string            `toml:"wire_api"`
	HTTPHeaders map[string]string `toml:"http_headers"`
	// EnvHTTPHeaders maps header names to environment variables holding the value.
	EnvHTTPHeaders    map[string]string `toml:"env_http_headers"`
	RequestMaxRetries *int              `toml:"request_max_retries"`
	StreamMaxRetries  *int              `toml:"stream_max_retries"`
	StreamIdleTimeout *int64            `toml:"stream_idle_timeout_ms"`
	// Provider keys of the model layer: see core/config/provider.go.
	ResponseHeaderTimeout *int64            `toml:"response_header_timeout_ms"`
	QueryParams           map[string]string `toml:"query_params"`
	OmitParams            []string          `toml:"omit_params"`
	MaxMessageBytes       *int              `toml:"max_message_bytes"`
	// StoreResponses (grove's; Codex has no such key) chains a thread's
	// Responses requests with previous_response_id and store: true.
	StoreResponses *bool `toml:"store_responses"`
}

// Project is one `[projects."<root>"]` table (Codex's name).
type Project struct {
	TrustLevel string `toml:"trust_level"`
}

// WorkspaceWrite tunes the workspace-write sandbox.
type WorkspaceWrite struct {
	WritableRoots []string `toml:"writable_roots"`
	NetworkAccess bool     `toml:"network_access"`
	// ExcludeTmpdirEnvVar and ExcludeSlashTmp take $TMPDIR and /tmp out
	// of the writable roots (both writable by default, as in Codex).
	ExcludeTmpdirEnvVar bool `toml:"exclude_tmpdir_env_var"`
	ExcludeSlashTmp     bool `toml:"exclude_slash_tmp"`
}

// Agents is the `[agents]` table.
type Agents struct {
	MaxThreads int `toml:"max_threads"`
	MaxDepth   int `toml:"max_depth"`
	// ModelAliases maps Claude Code model aliases (sonnet, opus, haiku) to model ids.
	ModelAliases map[string]string `toml:"model_aliases"`
	// Surface picks the delegation tools: collab (seed 000), task (seed
	// 004) or auto (task for Claude models, else collab).
	Surface string `toml:"surface"`
	// TrustCustomAgents lets user and project Task agents use exec_command
	// and apply_patch (seed 004 blocks them for non-built-in agents).
	TrustCustomAgents bool `toml:"trust_custom_agents"`
	// Profiles are the sessions surface's session types (profiles.go).
	Profiles map[string]Profile `toml:"profiles"`
	// InterruptMessage is Codex's agents.interrupt_message (absent =
	// true): an interrupted turn leaves a notice for the model.
	InterruptMessage *bool `toml:"interrupt_message"`
	// JobMaxRuntimeSeconds is Codex's agents.job_max_runtime_seconds, the
	// time limit of each worker of an agent job (spawn_agents_on_csv).
	// grove has no agent jobs: the value is checked as Codex checks it
	// and has nothing to limit.
	JobMaxRuntimeSeconds *int64 `toml:"job_max_runtime_seconds"`
}

// InterruptMessageOn reports whether an interrupted turn leaves the
// notice for the model (agents.interrupt_message, default true).
func (a Agents) InterruptMessageOn() bool { return a.InterruptMessage == nil || *a.InterruptMessage }

// Surfaces are the values agents.surface accepts.
var Surfaces = []string{"collab", "task", "inbox", "sessions", "auto"}

// TUI is the `[tui]` table.
type TUI struct {
	// Notifications is true/false or a list of kinds.
	Notifications         any    `toml:"notifications"`
	NotificationMethod    string `toml:"notification_method"`
	NotificationCondition string `toml:"notification_condition"`
	// AlternateScreen is auto, always or never (Inline).
	AlternateScreen string `toml:"alternate_screen"`
}

// fillDefaults checks the [tui] values and fills in the defaults.
func (t *TUI) fillDefaults() error {
	switch t.NotificationMethod {
	case "":
		t.NotificationMethod = "auto"
	case "auto", "osc9", "bel", "desktop":
	default:
		return fmt.Errorf("tui.notification_method %q: expected auto, osc9, bel or desktop", t.NotificationMethod)
	}
	switch t.NotificationCondition {
	case "":
		t.NotificationCondition = "unfocused"
	case "unfocused", "always":
	default:
		return fmt.Errorf("tui.notification_condition %q: expected unfocused or always", t.NotificationCondition)
	}
	switch t.AlternateScreen {
	case "":
		t.AlternateScreen = "auto"
	case "auto", "always", "never":
	default:
		return fmt.Errorf("tui.alternate_screen %q: expected auto, always or never", t.AlternateScreen)
	}
	return nil
}

// Inline reports whether the TUI runs in the terminal's main screen
// rather than the alternate one (Codex's AltScreenMode, codex-rs/core/src/
// config/types.rs): never, or auto inside Zellij, whose scrollback the
// alternate screen would hide; getenv reads the environment.
func (t TUI) Inline(getenv func(string) string) bool {
	switch t.AlternateScreen {
	case "never":
		return true
	case "always":
		return false
	}
	return getenv("ZELLIJ") != ""
}

// Exec is the `[exec]` table (headless defaults).
type Exec struct {
	ApproveWorkdirs bool `toml:"approve_workdirs"`
}

// Defaults.
const (
	DefaultMaxThreads = 12
	DefaultMaxDepth   = 3
)

// NotificationKinds are the kinds `[tui] notifications` may list.
var NotificationKinds = []string{"sub-agent-complete", "approval-requested", "turn-complete"}

// Home returns $GROVE_HOME or ~/.grove.
func Home() (string, error) {
	if h := os.Getenv("GROVE_HOME"); h != "" {
		return filepath.Abs(h)
	}
	u, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("locate home directory (set GROVE_HOME): %w", err)
	}
	return filepath.Join(u, ".grove"), nil
}

// LoadOptions say where the configuration comes from.
type LoadOptions struct {
	// Home is $GROVE_HOME; its config.toml is read first.
	Home string
	// CodexHome is $CODEX_HOME (or ~/.codex): its config.toml is used when
	// grove has none. "" looks at grove's file only.
	CodexHome string
	// Profile picks [profiles.<name>] (-p); "" uses the file's `profile`.
	Profile string
	// Overrides are -c key=value, applied before the profile (as Codex
	// does: a profile's value beats a -c of the same top-level key).
	Overrides []string
	// Flags are overrides from dedicated flags (-m, -s, -a, --demo),
	// applied after the profile.
	Flags []string
	// NoFiles reads no config file (Codex's --ignore-user-config).
	NoFiles bool
	// Content, when not nil, stands for grove's config.toml: an edit is
	// loaded as a thread would load it before it is written.
	Content []byte
}

// Load reads home/config.toml (absent is fine), applies overrides
// ("key=value", dotted keys, TOML values with a bare-string fallback) and
// fills defaults.
func Load(home string, overrides []string) (*Config, error) {
	return LoadWith(LoadOptions{Home: home, Overrides: overrides})
}

// LoadWith reads grove's config.toml, else Codex's, lays the selected
// profile and the overrides over it and fills defaults. Keys Codex accepts
// but grove does not use are named in one warning line.
func LoadWith(o LoadOptions) (*Config, error) {
	cfg := &Config{Home: o.Home}
	tree, err := cfg.readFile(o)
	if err != nil {
		return nil, err
	}
	source := "config"
	if cfg.Source != "" {
		source = "config " + cfg.Source
	}
	for _, ov := range o.Overrides {
		if err := checkOverride(ov); err != nil {
			return nil, err
		}
		if err := applyOverride(tree, ov); err != nil {
			return nil, err
		}
	}
	if err := cfg.applyProfile(tree, o.Profile, source); err != nil {
		return nil, err
	}
	for _, ov := range o.Flags {
		if err := applyOverride(tree, ov); err != nil {
			return nil, err
		}
	}
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(tree); err != nil {
		return nil, fmt.Errorf("%s: re-encode: %w", source, err)
	}
	md, err := toml.Decode(buf.String(), cfg)
	if err != nil {
		// The file and each override decoded on their own; only their
		// combination (a table replaced by a value) can fail here.
		return nil, fmt.Errorf("%s with the -c overrides: %s", source, withoutLine(err))
	}
	cfg.classifyUndecoded(md.Undecoded())
	if err := cfg.fillDefaults(); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	if err := cfg.validateSubagent(tree); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	if err := cfg.loadInstructionFiles(o.CodexHome); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	return cfg, nil
}

// readFile decodes the first config file that exists: grove's, else
// Codex's. Type errors are found here, on the file as written, so their
// line numbers are the file's (the merged tree is re-encoded and its lines
// are not).
func (c *Config) readFile(o LoadOptions) (map[string]any, error) {
	if o.NoFiles {
		return map[string]any{}, nil
	}
	paths := []string{filepath.Join(o.Home, "config.toml")}
	if o.CodexHome != "" {
		paths = append(paths, filepath.Join(o.CodexHome, "config.toml"))
	}
	c.LookedAt = paths
	tree := map[string]any{}
	for i, path := range paths {
		data, err := os.ReadFile(path)
		if i == 0 && o.Content != nil {
			data, err = o.Content, nil
		}
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read config %s: %w", path, err)
		}
		if _, err := toml.Decode(string(data), &tree); err != nil {
			return nil, fmt.Errorf("config %s: %w", path, err)
		}
		if _, err := toml.Decode(string(data), &Config{}); err != nil {
			return nil, fmt.Errorf("config %s: %w", path, err)
		}
		c.Source, c.FromCodex = path, i > 0
		if c.FromCodex {
			c.Warnings = append(c.Warnings, fmt.Sprintf("config: %s does not exist: using Codex's %s", paths[0], path))
		}
		break
	}
	return tree, nil
}

// classifyUndecoded turns the keys no field took into warnings: Codex's
// keys grove does not use make one line; other keys one warning each.
func (c *Config) classifyUndecoded(keys []toml.Key) {
	ignored := map[string]bool{}
	for _, k := range keys {
		if len(k) > 1 && k[0] == "hooks" {
			continue // core/hooks reads [hooks] itself; the toml package marks arrays of tables in a map undecoded
		}
		row, ok := codexKeyFor(k)
		switch {
		case !ok:
			c.Warnings = append(c.Warnings, fmt.Sprintf("config: unknown key %q (ignored)", k.String()))
		default:
			// A row grove implements lands here only if no field reads
			// it: it is ignored all the same, and said so.
			ignored[row.Key] = true
		}
	}
	if line := ignoredLine(ignored); line != "" {
		c.Warnings = append(c.Warnings, line)
	}
}

// checkOverride decodes one -c override on its own, so that a type error
// names the override rather than a line of a file.
func checkOverride(o string) error {
	tree := map[string]any{}
	if err := applyOverride(tree, o); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(tree); err != nil {
		return fmt.Errorf("-c %q: %w", o, err)
	}
	if _, err := toml.Decode(buf.String(), &Config{}); err != nil {
		return fmt.Errorf("-c %q: %s", o, withoutLine(err))
	}
	return nil
}

// withoutLine renders a decode error of re-encoded TOML without its line
// number, which points into text the user never wrote.
func withoutLine(err error) string {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		if pe.LastKey != "" {
			return fmt.Sprintf("%s: %s", pe.LastKey, pe.Message)
		}
		return pe.Message
	}
	// Type errors are plain: `toml: line N (last key "k"): message`.
	if m := decodeErrLine.FindStringSubmatch(err.Error()); m != nil {
		return m[1] + ": " + m[2]
	}
	return err.Error()
}

var decodeErrLine = regexp.MustCompile(`^toml: (?:line \d+ )?\(last key "([^"]*)"\): (.*)$`)

// applyOverride sets one dotted key in the raw TOML tree.
func applyOverride(tree map[string]any, o string) error {
	key, raw, ok := strings.Cut(o, "=")
	key = strings.TrimSpace(key)
	if !ok || key == "" {
		return fmt.Errorf("-c %q: expected key=value", o)
	}
	var holder map[string]any
	var val any
	if _, err := toml.Decode("v = "+raw, &holder); err == nil {
		val = holder["v"]
	} else {
		val = strings.TrimSpace(raw)
	}
	parts := strings.Split(key, ".")
	m := tree
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	m[parts[len(parts)-1]] = val
	return nil
}

func (c *Config) fillDefaults() error {
	if c.ModelContextWindow < 0 {
		return fmt.Errorf("model_context_window = %d: expected a positive number of tokens", c.ModelContextWindow)
	}
	if c.ModelAutoCompactTokenLimit < 0 {
		return fmt.Errorf("model_auto_compact_token_limit = %d: expected a positive number of tokens", c.ModelAutoCompactTokenLimit)
	}
	if _, err := c.Prices(); err != nil {
		return err
	}
	if _, _, err := c.WebSearch(); err != nil {
		return err
	}
	if err := c.checkReasoning(); err != nil {
		return err
	}
	policy, err := c.Approval.Policy()
	if err != nil {
		return err
	}
	c.ApprovalPolicy = policy
	if c.SandboxMode == "" {
		c.SandboxMode = protocol.SandboxWorkspaceWrite
	}
	if !c.SandboxMode.Valid() {
		return fmt.Errorf("sandbox_mode %q: expected read-only, workspace-write or danger-full-access", c.SandboxMode)
	}
	if err := c.mergeAgentMaxThreads(); err != nil {
		return err
	}
	if c.Agents.MaxThreads == 0 {
		c.Agents.MaxThreads = DefaultMaxThreads
	}
	c.Agents.Surface = strings.ToLower(strings.TrimSpace(c.Agents.Surface))
	if c.Agents.Surface == "" {
		c.Agents.Surface = "collab"
		if e := c.Subagent.Enabled; e != nil && *e {
			// Seed 004: `[subagent] enabled = true` alone offers Task
			// and TaskOutput (agents.surface, when set, still decides).
			c.Agents.Surface = "task"
		}
	}
	if !slices.Contains(Surfaces, c.Agents.Surface) {
		return fmt.Errorf("agents.surface %q: expected collab, task, inbox, sessions or auto", c.Agents.Surface)
	}
	if err := c.Agents.checkProfiles(); err != nil {
		return err
	}
	if c.Agents.MaxThreads < 1 {
		return fmt.Errorf("agents.max_threads %d: must be at least 1", c.Agents.MaxThreads)
	}
	if c.Agents.MaxDepth == 0 {
		c.Agents.MaxDepth = DefaultMaxDepth
	}
	if v := c.Agents.JobMaxRuntimeSeconds; v != nil && *v < 1 {
		return fmt.Errorf("agents.job_max_runtime_seconds %d: must be at least 1", *v)
	}
	if c.Agents.MaxDepth < 1 {
		return fmt.Errorf("agents.max_depth %d: must be at least 1", c.Agents.MaxDepth)
	}
	if err := c.TUI.fillDefaults(); err != nil {
		return err
	}
	if _, err := c.NotificationKinds(); err != nil {
		return err
	}
	c.Warnings = append(c.Warnings, c.unknownNotificationKinds()...)
	if len(c.Notify) > 0 && strings.TrimSpace(c.Notify[0]) == "" {
		return errors.New("notify: the first element is the program to run and is empty")
	}
	if err := c.ShellEnvironment.validate(); err != nil {
		return err
	}
	for name, p := range c.ModelProviders {
		if p.WireAPI != "" && p.WireAPI != "chat" && p.WireAPI != "responses" {
			return fmt.Errorf("model_providers.%s.wire_api %q: expected chat or responses", name, p.WireAPI)
		}
	}
	if err := c.validateHosts(); err != nil {
		return err
	}
	c.validateMCP()
	return nil
}

// mergeAgentMaxThreads reads seed 000's top-level agent_max_threads into
// agents.max_threads (Codex's spelling of the same limit). Both set to
// different numbers is an error: either silent pick would be a surprise.
func (c *Config) mergeAgentMaxThreads() error {
	v := c.AgentMaxThreads
	if v == nil {
		return nil
	}
	if *v < 1 {
		return fmt.Errorf("agent_max_threads = %d: must be at least 1", *v)
	}
	if c.Agents.MaxThreads != 0 && c.Agents.MaxThreads != *v {
		return fmt.Errorf("agent_max_threads = %d and agents.max_threads = %d: the same limit twice with different values", *v, c.Agents.MaxThreads)
	}
	c.Agents.MaxThreads = *v
	return nil
}

// NotificationKinds returns the enabled kinds of `[tui] notifications`
// (absent or true = all, false = none, a list = those). A list may use
// Codex's names (agent-turn-complete = turn-complete); names grove does
// not know are left out (unknownNotificationKinds warns about them).
func (c *Config) NotificationKinds() (map[string]bool, error) {
	all := func(on bool) map[string]bool {
		m := map[string]bool{}
		for _, k := range NotificationKinds {
			m[k] = on
		}
		return m
	}
	switch v := c.TUI.Notifications.(type) {
	case nil:
		return all(true), nil
	case bool:
		return all(v), nil
	case []any:
		m := all(false)
		for _, x := range v {
			s, ok := x.(string)
			if !ok {
				return nil, fmt.Errorf("tui.notifications: %v is not a name (expected true, false or a list of names)", x)
			}
			if alias, ok := notificationAliases[s]; ok {
				s = alias
			}
			if _, known := m[s]; known {
				m[s] = true
			}
		}
		return m, nil
	case string:
		return nil, fmt.Errorf("tui.notifications %q: expected true, false or a list of names", v)
	}
	return nil, fmt.Errorf("tui.notifications: expected true, false or a list of names")
}

// notificationAliases maps Codex's notification names to grove's kinds.
var notificationAliases = map[string]string{"agent-turn-complete": "turn-complete"}

// unknownNotificationKinds warns about list entries grove has no kind for
// (Codex accepts any name; a typo should not pass unseen).
func (c *Config) unknownNotificationKinds() []string {
	list, _ := c.TUI.Notifications.([]any)
	var out []string
	for _, x := range list {
		s, _ := x.(string)
		if _, ok := notificationAliases[s]; ok || slices.Contains(NotificationKinds, s) {
			continue
		}
		out = append(out, fmt.Sprintf("config: tui.notifications: grove has no notification %q (it knows %s, agent-turn-complete)", s, strings.Join(NotificationKinds, ", ")))
	}
	return out
}

// SandboxPolicy returns the effective sandbox policy for the root thread.
func (c *Config) SandboxPolicy() protocol.SandboxPolicy {
	p := protocol.SandboxPolicy{Mode: c.SandboxMode}
	if c.SandboxMode == protocol.SandboxWorkspaceWrite {
		p.WritableRoots = append([]string(nil), c.WorkspaceWrite.WritableRoots...)
		p.NetworkAccess = c.WorkspaceWrite.NetworkAccess
		p.ExcludeTmpdirEnvVar = c.WorkspaceWrite.ExcludeTmpdirEnvVar
		p.ExcludeSlashTmp = c.WorkspaceWrite.ExcludeSlashTmp
	}
	return p
}

// ProviderNames lists configured and built-in provider names, sorted.
func (c *Config) ProviderNames() []string {
	seen := map[string]bool{}
	for n := range builtinProviders {
		seen[n] = true
	}
	for n := range c.ModelProviders {
		seen[n] = true
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
