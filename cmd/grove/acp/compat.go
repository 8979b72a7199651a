package acp

// CompatRow is one line of docs/codex-compat-servers.md's ACP table (see
// appserver.CompatRow).
type CompatRow struct {
	Name, Status, Note, Test string
}

// Compat lists ACP's agent methods and grove's answer; "not yet" methods
// answer -32601.
var Compat = []CompatRow{
	{"initialize", "works", "loadSession, image and embedded-context prompts, HTTP MCP servers, session/list", "TestACPSession"},
	{"session/new", "works", "answers with modes (approval policies) and models", "TestSessionModesModelsAndList"},
	{"session/load", "works", "replays messages and each tool call with its recorded outcome: failed calls failed with exit code and error, a sub-agent by its child's final status", "TestACPSession"},
	{"session/prompt", "works", "", "TestACPSession"},
	{"session/cancel", "works", "", "TestACPSession"},
	{"session/list", "works", "the shared session index, newest first; cwd filter; cursor", "TestSessionModesModelsAndList"},
	{"session/set_mode", "works", "modes are approval policies (untrusted, on-request, on-failure, never), for the whole tree", "TestSessionModesModelsAndList"},
	{"session/set_model", "works", "unstable in ACP; sets the root's model for its next turns", "TestSessionModesModelsAndList"},
	{"session/close", "not yet", "", "TestCompatMethods"},
	{"session/resume", "not yet", "session/load does it, with the replay", "TestCompatMethods"},
	{"session/set_config_option", "not yet", "", "TestCompatMethods"},
}
