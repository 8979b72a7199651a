package templates

import (
	"fmt"
	"sort"
	"strings"
)

// Seed 004 §3.1.1's disabledFeatures names Codex features (its example:
// ["WebSearchRequest", "ViewImageTool"], the ReviewTask pattern of
// disabling features in a sub-agent's config). A name is the Feature
// variant or its [features] key (codex-rs/core/src/features.rs).

// featureEffect is what disabling a Codex feature does to a grove agent.
type featureEffect int

const (
	// featureAbsent: grove gives no agent this feature (a tool it does
	// not have, a session or terminal setting): the agent is already
	// without it.
	//lint:ignore U1000 the zero value, named so the table's omitted effect reads as a choice
	featureAbsent featureEffect = iota
	// featureRemoves denies the listed grove tools to the agent.
	featureRemoves
	// featureNotPerAgent: grove has the feature for every agent and
	// cannot turn it off for one: the definition loads with a warning.
	featureNotPerAgent
)

type codexFeature struct {
	variant, key string
	effect       featureEffect
	tools        []string // featureRemoves: grove tool names
	note         string   // featureNotPerAgent: what stays on
}

var codexFeatures = []codexFeature{
	// Codex without its shell tool has no command tool at all.
	{variant: "ShellTool", key: "shell_tool", effect: featureRemoves, tools: []string{"exec_command"}},
	{variant: "CodexHooks", key: "codex_hooks", effect: featureNotPerAgent, note: "grove's hooks run for every agent"},
	// Codex falls back to its plain shell tool: grove's exec_command is that tool.
	{variant: "UnifiedExec", key: "unified_exec"},
	// Codex falls back to the JSON apply_patch: grove's apply_patch is that tool.
	{variant: "ApplyPatchFreeform", key: "apply_patch_freeform"},
	// A Task agent gets no delegation tools in the first place.
	{variant: "Collab", key: "multi_agent"},
	{variant: "SpawnCsv", key: "enable_fanout"},
	// Tools grove does not have.
	{variant: "WebSearchRequest", key: "web_search_request"},
	{variant: "WebSearchCached", key: "web_search_cached"},
	{variant: "SearchTool", key: "search_tool"},
	{variant: "ViewImageTool", key: "view_image_tool"},
	{variant: "JsRepl", key: "js_repl"},
	{variant: "JsReplToolsOnly", key: "js_repl_tools_only"},
	{variant: "CodeMode", key: "code_mode"},
	{variant: "CodeModeOnly", key: "code_mode_only"},
	{variant: "RequestPermissionsTool", key: "request_permissions_tool"},
	{variant: "MemoryTool", key: "memories"},
	{variant: "ImageGeneration", key: "image_generation"},
	{variant: "Artifact", key: "artifact"},
	{variant: "Apps", key: "apps"},
	{variant: "AppsMcpGateway", key: "apps_mcp_gateway"},
	{variant: "ToolSuggest", key: "tool_suggest"},
	{variant: "Plugins", key: "plugins"},
	{variant: "RequestRule", key: "request_rule"},
	{variant: "ExecPermissionApprovals", key: "exec_permission_approvals"},
	{variant: "DefaultModeRequestUserInput", key: "default_mode_request_user_input"},
	{variant: "ToolCallMcpElicitation", key: "tool_call_mcp_elicitation"},
	{variant: "SkillMcpDependencyInstall", key: "skill_mcp_dependency_install"},
	{variant: "SkillEnvVarDependencyPrompt", key: "skill_env_var_dependency_prompt"},
	{variant: "GuardianApproval", key: "smart_approvals"},
	{variant: "ChildAgentsMd", key: "child_agents_md"},
	{variant: "ImageDetailOriginal", key: "image_detail_original"},
	{variant: "CodexGitCommit", key: "codex_git_commit"},
	{variant: "GhostCommit", key: "undo"},
	// Session, sandbox, transport and terminal settings, not an agent's.
	{variant: "ShellZshFork", key: "shell_zsh_fork"},
	{variant: "ShellSnapshot", key: "shell_snapshot"},
	{variant: "UseLinuxSandboxBwrap", key: "use_linux_sandbox_bwrap"},
	{variant: "UseLegacyLandlock", key: "use_legacy_landlock"},
	{variant: "WindowsSandbox", key: "experimental_windows_sandbox"},
	{variant: "WindowsSandboxElevated", key: "elevated_windows_sandbox"},
	{variant: "RemoteModels", key: "remote_models"},
	{variant: "RuntimeMetrics", key: "runtime_metrics"},
	{variant: "Sqlite", key: "sqlite"},
	{variant: "PowershellUtf8", key: "powershell_utf8"},
	{variant: "EnableRequestCompression", key: "enable_request_compression"},
	{variant: "Steer", key: "steer"},
	{variant: "CollaborationModes", key: "collaboration_modes"},
	{variant: "Personality", key: "personality"},
	{variant: "FastMode", key: "fast_mode"},
	{variant: "VoiceTranscription", key: "voice_transcription"},
	{variant: "RealtimeConversation", key: "realtime_conversation"},
	{variant: "TuiAppServer", key: "tui_app_server"},
	{variant: "PreventIdleSleep", key: "prevent_idle_sleep"},
	{variant: "ResponsesWebsockets", key: "responses_websockets"},
	{variant: "ResponsesWebsocketsV2", key: "responses_websockets_v2"},
}

func lookupFeature(name string) (codexFeature, bool) {
	for _, f := range codexFeatures {
		if name == f.variant || name == f.key {
			return f, true
		}
	}
	return codexFeature{}, false
}

// disabledFeatureTools checks a definition's disabledFeatures and returns
// the grove tools they take away. An unknown name is an error: a misspelt
// feature would otherwise stay on without a word.
func disabledFeatureTools(path string, names []string, warnings []string) ([]string, []string, error) {
	var deny []string
	for _, n := range names {
		f, ok := lookupFeature(strings.TrimSpace(n))
		if !ok {
			return nil, warnings, fmt.Errorf("disabledFeatures: unknown feature %q (Codex's feature names, e.g. ShellTool or shell_tool; known: %s)", n, strings.Join(featureVariants(), ", "))
		}
		switch f.effect {
		case featureRemoves:
			deny = append(deny, f.tools...)
		case featureNotPerAgent:
			warnings = append(warnings, fmt.Sprintf("%s: disabledFeatures %s: %s; it stays on for this agent", path, n, f.note))
		}
	}
	return deny, warnings, nil
}

func featureVariants() []string {
	out := make([]string, len(codexFeatures))
	for i, f := range codexFeatures {
		out[i] = f.variant
	}
	sort.Strings(out)
	return out
}
