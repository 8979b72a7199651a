package config

import (
	"sort"
	"strings"
)

// KeyStatus says how grove treats one of Codex's config keys.
type KeyStatus string

// Key statuses, as docs/codex-compat.md shows them.
const (
	KeyWorks   KeyStatus = "works"
	KeyDiffers KeyStatus = "differs"
	KeyNotYet  KeyStatus = "not yet"
)

// CodexKey is one row of the table of Codex config keys: a dotted path
// where "*" stands for a name the user picks (a provider, a server, a
// profile). A Section row covers every key under it.
type CodexKey struct {
	Key     string
	Status  KeyStatus
	Note    string
	Section bool
}

// CodexKeys lists every key Codex's config schema accepts
// (codex-rs/core/config.schema.json; testdata/codex holds the copy the
// tests check this table against) and what grove does with it. Keys that
// are "not yet" are accepted and named once in one startup line.
var CodexKeys = []CodexKey{
	{Key: "model", Status: KeyWorks},
	{Key: "model_provider", Status: KeyWorks},
	{Key: "model_providers.*.name", Status: KeyWorks},
	{Key: "model_providers.*.base_url", Status: KeyWorks},
	{Key: "model_providers.*.env_key", Status: KeyWorks, Note: "an unset variable is an error naming it and the config file"},
	{Key: "model_providers.*.env_key_instructions", Status: KeyWorks, Note: "shown in the error when the variable is unset"},
	{Key: "model_providers.*.experimental_bearer_token", Status: KeyWorks},
	{Key: "model_providers.*.wire_api", Status: KeyDiffers, Note: "grove also accepts chat (Chat Completions)"},
	{Key: "model_providers.*.http_headers", Status: KeyWorks, Section: true},
	{Key: "model_providers.*.env_http_headers", Status: KeyWorks, Section: true},
	{Key: "model_providers.*.query_params", Status: KeyWorks, Section: true},
	{Key: "model_providers.*.request_max_retries", Status: KeyWorks},
	{Key: "model_providers.*.stream_idle_timeout_ms", Status: KeyWorks},
	{Key: "model_providers.*.stream_max_retries", Status: KeyWorks},
	{Key: "model_providers.*.requires_openai_auth", Status: KeyNotYet, Note: "no ChatGPT login: keys come from env_key"},
	{Key: "model_providers.*.supports_websockets", Status: KeyNotYet},
	{Key: "model_providers.*.websocket_connect_timeout_ms", Status: KeyNotYet},
	{Key: "model_providers.*.auth", Status: KeyNotYet, Section: true},
	{Key: "model_providers.*.aws", Status: KeyNotYet, Section: true},
	{Key: "model_reasoning_effort", Status: KeyWorks},
	{Key: "approval_policy", Status: KeyDiffers, Note: "the granular table maps to on-request when sandbox_approval is true, else never; its other categories have no grove counterpart", Section: true},
	{Key: "sandbox_mode", Status: KeyWorks},
	{Key: "sandbox_workspace_write.writable_roots", Status: KeyWorks},
	{Key: "sandbox_workspace_write.network_access", Status: KeyWorks},
	{Key: "sandbox_workspace_write.exclude_slash_tmp", Status: KeyWorks, Note: "kernel-enforced; removes /tmp only: with TMPDIR=/tmp set exclude_tmpdir_env_var too (as in Codex); /dev/shm is the sandbox's own tmpfs, never the user's"},
	{Key: "sandbox_workspace_write.exclude_tmpdir_env_var", Status: KeyWorks, Note: "kernel-enforced; commands get TMPDIR naming a temp dir they may write, or keep theirs when none is"},
	{Key: "instructions", Status: KeyDiffers, Note: "added to grove's base prompt as user instructions, not replacing it"},
	{Key: "developer_instructions", Status: KeyDiffers, Note: "added to every agent's instructions as their own section, not as a separate developer message"},
	{Key: "model_instructions_file", Status: KeyWorks, Note: "replaces grove's base prompt; a missing file is an error naming it"},
	{Key: "profile", Status: KeyWorks},
	{Key: "profiles.*", Status: KeyWorks, Note: "a profile's keys override the top level; each key is then treated as the top-level key of its name", Section: true},
	{Key: "notify", Status: KeyWorks, Note: "called after each root turn with Codex's agent-turn-complete JSON as the last argument"},
	{Key: "openai_base_url", Status: KeyWorks},
	{Key: "tui.notifications", Status: KeyWorks, Note: "true, false or a list: agent-turn-complete, approval-requested and grove's sub-agent-complete"},
	{Key: "tui.notification_method", Status: KeyDiffers, Note: "grove also accepts desktop"},
	{Key: "tui.notification_condition", Status: KeyWorks},
	{Key: "tui.alternate_screen", Status: KeyWorks, Note: "auto (the main screen inside Zellij), always or never"},
	{Key: "tui.animations", Status: KeyNotYet},
	{Key: "tui.keymap", Status: KeyNotYet, Section: true},
	{Key: "tui.model_availability_nux", Status: KeyNotYet, Section: true},
	{Key: "tui.pet", Status: KeyNotYet},
	{Key: "tui.pet_anchor", Status: KeyNotYet},
	{Key: "tui.raw_output_mode", Status: KeyNotYet},
	{Key: "tui.session_picker_view", Status: KeyNotYet},
	{Key: "tui.show_mcp_startup_status", Status: KeyNotYet},
	{Key: "tui.show_tooltips", Status: KeyNotYet},
	{Key: "tui.status_line", Status: KeyNotYet},
	{Key: "tui.status_line_use_colors", Status: KeyNotYet},
	{Key: "tui.terminal_resize_reflow_max_rows", Status: KeyNotYet},
	{Key: "tui.terminal_title", Status: KeyNotYet},
	{Key: "tui.theme", Status: KeyNotYet},
	{Key: "tui.vim_mode_default", Status: KeyNotYet},
	{Key: "mcp_servers.*.command", Status: KeyWorks},
	{Key: "mcp_servers.*.args", Status: KeyWorks},
	{Key: "mcp_servers.*.env", Status: KeyWorks, Section: true},
	{Key: "mcp_servers.*.env_vars", Status: KeyWorks, Note: "named variables are passed from grove's environment; source other than local is not yet", Section: true},
	{Key: "mcp_servers.*.cwd", Status: KeyWorks},
	{Key: "mcp_servers.*.url", Status: KeyWorks},
	{Key: "mcp_servers.*.http_headers", Status: KeyWorks, Section: true},
	{Key: "mcp_servers.*.env_http_headers", Status: KeyWorks, Section: true},
	{Key: "mcp_servers.*.bearer_token_env_var", Status: KeyWorks},
	{Key: "mcp_servers.*.startup_timeout_sec", Status: KeyWorks},
	{Key: "mcp_servers.*.startup_timeout_ms", Status: KeyWorks},
	{Key: "mcp_servers.*.tool_timeout_sec", Status: KeyWorks},
	{Key: "mcp_servers.*.enabled", Status: KeyWorks},
	{Key: "mcp_servers.*.enabled_tools", Status: KeyWorks},
	{Key: "mcp_servers.*.disabled_tools", Status: KeyWorks},
	{Key: "mcp_servers.*.name", Status: KeyWorks, Note: "accepted and unused, as in Codex (a legacy display name; the table's key names the server)"},
	{Key: "mcp_servers.*.required", Status: KeyWorks},
	{Key: "mcp_servers.*.environment_id", Status: KeyNotYet},
	{Key: "mcp_servers.*.oauth", Status: KeyNotYet, Section: true},
	{Key: "mcp_servers.*.oauth_resource", Status: KeyNotYet},
	{Key: "mcp_servers.*.scopes", Status: KeyNotYet},
	{Key: "mcp_servers.*.supports_parallel_tool_calls", Status: KeyWorks, Note: "without it, each call of the server's tools runs alone among the calls of one model reply, as in Codex"},
	{Key: "mcp_servers.*.default_tools_approval_mode", Status: KeyDiffers, Note: "approve, prompt and writes as in Codex; auto (the default) is grove's MCP rule: under untrusted and on-request ask for a tool not annotated read-only, under on-failure and never run it (docs/mcp.md)"},
	{Key: "mcp_servers.*.tools", Status: KeyDiffers, Note: "tools.<tool>.approval_mode overrides default_tools_approval_mode for one tool (the server's own name for it), as in Codex; see default_tools_approval_mode for auto", Section: true},
	{Key: "shell_environment_policy.exclude", Status: KeyDiffers, Note: "globs, not regular expressions"},
	{Key: "shell_environment_policy.include_only", Status: KeyDiffers, Note: "globs, not regular expressions"},
	{Key: "shell_environment_policy.set", Status: KeyWorks, Section: true},
	{Key: "shell_environment_policy.ignore_default_excludes", Status: KeyDiffers, Note: "defaults to false (Codex: true): the secret patterns, more than Codex's three, are dropped unless set; provider keys are dropped either way"},
	{Key: "shell_environment_policy.inherit", Status: KeyWorks, Note: "core is Codex's HOME, LOGNAME, PATH, SHELL, USER, USERNAME, TMPDIR, TEMP, TMP"},
	{Key: "shell_environment_policy.experimental_use_profile", Status: KeyDiffers, Note: "read, changes nothing: Codex uses it for its argv-form shell tool, which grove lacks; allow_login_shell and login decide the profile"},
	{Key: "agents.max_threads", Status: KeyWorks},
	{Key: "agents.max_depth", Status: KeyWorks},
	{Key: "agents.interrupt_message", Status: KeyWorks, Note: "true (the default): an interrupted turn of any agent leaves a notice for the model's next request (Codex's turn_aborted marker, in grove's words), and so does a fork taken mid-turn; forks, rewinds and resumes keep it; false: none"},
	{Key: "agents.job_max_runtime_seconds", Status: KeyDiffers, Note: "checked (at least 1) but limits nothing: it is the time limit of Codex's agent-job workers (spawn_agents_on_csv), a feature grove does not have"},
	{Key: "agents.*", Status: KeyNotYet, Note: "Codex agent roles; grove's roles are template files (docs/templates.md)", Section: true},
	{Key: "allow_login_shell", Status: KeyWorks, Note: "false also runs Claude Code's Bash without the login environment, and no profile runs at start"},
	{Key: "analytics", Status: KeyNotYet, Section: true},
	{Key: "approvals_reviewer", Status: KeyNotYet},
	{Key: "apps", Status: KeyNotYet, Section: true},
	{Key: "apps_mcp_product_sku", Status: KeyNotYet},
	{Key: "audio", Status: KeyNotYet, Section: true},
	{Key: "auto_review", Status: KeyNotYet, Section: true},
	{Key: "background_terminal_max_timeout", Status: KeyNotYet},
	{Key: "chatgpt_base_url", Status: KeyNotYet},
	{Key: "check_for_update_on_startup", Status: KeyNotYet},
	{Key: "cli_auth_credentials_store", Status: KeyNotYet},
	{Key: "compact_prompt", Status: KeyNotYet},
	{Key: "debug", Status: KeyNotYet, Section: true},
	{Key: "default_permissions", Status: KeyNotYet},
	{Key: "desktop", Status: KeyNotYet, Section: true},
	{Key: "disable_paste_burst", Status: KeyNotYet},
	{Key: "experimental_compact_prompt_file", Status: KeyNotYet},
	{Key: "experimental_realtime_start_instructions", Status: KeyNotYet},
	{Key: "experimental_realtime_ws_backend_prompt", Status: KeyNotYet},
	{Key: "experimental_realtime_ws_base_url", Status: KeyNotYet},
	{Key: "experimental_realtime_ws_model", Status: KeyNotYet},
	{Key: "experimental_realtime_ws_startup_context", Status: KeyNotYet},
	{Key: "experimental_thread_config_endpoint", Status: KeyNotYet},
	{Key: "experimental_thread_store", Status: KeyNotYet, Section: true},
	{Key: "experimental_use_unified_exec_tool", Status: KeyNotYet},
	{Key: "features", Status: KeyNotYet, Note: "grove's features are always on or configured by their own keys", Section: true},
	{Key: "feedback", Status: KeyNotYet, Section: true},
	{Key: "file_opener", Status: KeyNotYet},
	{Key: "forced_chatgpt_workspace_id", Status: KeyNotYet},
	{Key: "forced_login_method", Status: KeyNotYet},
	{Key: "ghost_snapshot", Status: KeyNotYet, Section: true},
	{Key: "hide_agent_reasoning", Status: KeyNotYet},
	{Key: "history", Status: KeyNotYet, Section: true},
	{Key: "hooks", Status: KeyWorks, Note: "inline hooks and [hooks.state] reviews (docs/hooks.md)", Section: true},
	{Key: "include_apps_instructions", Status: KeyNotYet},
	{Key: "include_collaboration_mode_instructions", Status: KeyNotYet},
	{Key: "include_environment_context", Status: KeyNotYet},
	{Key: "include_permissions_instructions", Status: KeyNotYet},
	{Key: "log_dir", Status: KeyNotYet, Note: "grove logs to $GROVE_HOME/log"},
	{Key: "marketplaces", Status: KeyNotYet, Section: true},
	{Key: "mcp_oauth_callback_port", Status: KeyNotYet},
	{Key: "mcp_oauth_callback_url", Status: KeyNotYet},
	{Key: "mcp_oauth_credentials_store", Status: KeyNotYet},
	{Key: "memories", Status: KeyNotYet, Section: true},
	{Key: "model_auto_compact_token_limit", Status: KeyWorks},
	{Key: "model_auto_compact_token_limit_scope", Status: KeyNotYet},
	{Key: "model_catalog_json", Status: KeyNotYet},
	{Key: "model_context_window", Status: KeyWorks},
	{Key: "model_reasoning_summary", Status: KeyWorks},
	{Key: "model_supports_reasoning_summaries", Status: KeyNotYet},
	{Key: "model_verbosity", Status: KeyNotYet},
	{Key: "notice", Status: KeyNotYet, Section: true},
	{Key: "oss_provider", Status: KeyNotYet},
	{Key: "otel", Status: KeyNotYet, Section: true},
	{Key: "permissions", Status: KeyNotYet, Section: true},
	{Key: "personality", Status: KeyNotYet},
	{Key: "plan_mode_reasoning_effort", Status: KeyNotYet},
	{Key: "plugins", Status: KeyNotYet, Section: true},
	{Key: "project_doc_fallback_filenames", Status: KeyNotYet},
	{Key: "project_doc_max_bytes", Status: KeyNotYet},
	{Key: "project_root_markers", Status: KeyNotYet},
	{Key: "projects", Status: KeyDiffers, Note: "trust_level = \"trusted\" lets a project's hooks load (docs/hooks.md); other trust grove asks for in its own way (docs/security.md)", Section: true},
	{Key: "realtime", Status: KeyNotYet, Section: true},
	{Key: "review_model", Status: KeyNotYet},
	{Key: "service_tier", Status: KeyNotYet},
	{Key: "show_raw_agent_reasoning", Status: KeyNotYet},
	{Key: "skills", Status: KeyNotYet, Section: true},
	{Key: "sqlite_home", Status: KeyNotYet},
	{Key: "suppress_unstable_features_warning", Status: KeyNotYet},
	{Key: "tool_output_token_limit", Status: KeyNotYet},
	{Key: "tool_suggest", Status: KeyNotYet, Section: true},
	{Key: "tools", Status: KeyNotYet, Section: true},
	{Key: "web_search", Status: KeyWorks, Note: "the Responses hosted web_search tool (not offered on Chat Completions)"},
	{Key: "tools.web_search", Status: KeyWorks, Section: true, Note: "true (older Codex: live search) or the table of allowed_domains, context_size, location"},
	{Key: "windows", Status: KeyNotYet, Section: true},
}

// codexKeyFor finds the row covering a key path: the row whose pattern
// matches it exactly, else the longest Section row matching a prefix.
func codexKeyFor(path []string) (CodexKey, bool) {
	var best CodexKey
	bestLen := -1
	for _, k := range CodexKeys {
		pat := strings.Split(k.Key, ".")
		if len(pat) > len(path) || (len(pat) < len(path) && !k.Section) {
			continue
		}
		if !matchPath(pat, path[:len(pat)]) {
			continue
		}
		// A literal segment beats "*" at the same depth: agents.max_depth
		// is grove's, agents.<role> is Codex's.
		score := len(pat)*2 - strings.Count(k.Key, "*")
		if score > bestLen {
			best, bestLen = k, score
		}
	}
	return best, bestLen >= 0
}

func matchPath(pat, path []string) bool {
	for i := range pat {
		if pat[i] != "*" && pat[i] != path[i] {
			return false
		}
	}
	return true
}

// ignoredLine is the one startup line naming the Codex keys grove accepts
// but does not use ("" when there are none).
func ignoredLine(keys map[string]bool) string {
	if len(keys) == 0 {
		return ""
	}
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	return "config: grove does not use these Codex keys yet (see docs/codex-compat.md): " + strings.Join(names, ", ")
}
