package main

import "github.com/grovecli/grove/core/config"

// compatRow is one row of docs/codex-compat.md: a Codex flag, event or
// app-server method and what grove does with it. The doc is generated
// from these tables and config.CodexKeys (compat_doc_test.go), and the
// tests check the tables against grove's own flags and Codex's shapes.
type compatRow struct {
	Name   string
	Status config.KeyStatus
	Note   string
}

// codexExecFlags are `codex exec`'s flags (codex-rs/exec/src/cli.rs and the
// shared options it flattens, openai/codex 02805335a40541933661cade68723897d5eedfd2)
// plus --collaboration-mode, which the TypeScript SDK passes.
var codexExecFlags = []compatRow{
	{"PROMPT", config.KeyWorks, "`-` or none reads stdin; with a prompt, piped stdin is appended as a <stdin> block (not under --experimental-json, whose stdin the SDK keeps for control messages)"},
	{"-c, --config", config.KeyWorks, "dotted keys, TOML values; applied before the profile, as Codex does"},
	{"-m, --model", config.KeyWorks, ""},
	{"-p, --profile", config.KeyWorks, ""},
	{"-s, --sandbox", config.KeyWorks, ""},
	{"-C, --cd", config.KeyWorks, ""},
	{"-i, --image", config.KeyWorks, "sent as an image input (Responses input_image, Chat image_url)"},
	{"--add-dir", config.KeyWorks, "an extra writable root of the workspace-write sandbox"},
	{"--full-auto", config.KeyWorks, "workspace-write sandbox, approval never (exec is headless)"},
	{"--dangerously-bypass-approvals-and-sandbox", config.KeyWorks, "danger-full-access, never"},
	{"--dangerously-bypass-hook-trust", config.KeyWorks, "runs unreviewed (not untrusted-project) hooks for this run, naming them (docs/hooks.md)"},
	{"--skip-git-repo-check", config.KeyDiffers, "accepted; grove never requires a git repository"},
	{"--ephemeral", config.KeyWorks, "the session's files go to a temporary directory removed at exit"},
	{"--ignore-user-config", config.KeyWorks, "reads neither grove's nor Codex's config.toml"},
	{"--ignore-rules", config.KeyDiffers, "accepted; grove has no execpolicy .rules files"},
	{"--oss", config.KeyWorks, "the built-in ollama provider (or --local-provider)"},
	{"--local-provider", config.KeyWorks, "ollama or lmstudio"},
	{"--json, --experimental-json", config.KeyWorks, "Codex's JSONL events (see below); --json=grove or --events prints grove's own events"},
	{"-o, --output-last-message", config.KeyWorks, ""},
	{"--output-schema", config.KeyWorks, "Responses text.format / Chat response_format (strict json_schema named codex_output_schema); the demo model refuses it"},
	{"--color", config.KeyDiffers, "always, never and auto are accepted; grove's progress output has no colour"},
	{"--version", config.KeyWorks, "prints grove's version"},
	{"resume <SESSION_ID> [PROMPT]", config.KeyWorks, "a grove session id or unique prefix"},
	{"resume --last [PROMPT]", config.KeyWorks, "the newest session of the current directory (-C or the shell's); the turn runs there"},
	{"--all", config.KeyWorks, "with resume --last: the newest session of any directory"},
	{"--responsesapi-client-metadata KEY=VALUE", config.KeyWorks, "sent with the turn's model requests in the x-codex-turn-metadata header, with turn_id"},
	{"review [--uncommitted | --base BRANCH | --commit SHA [--title T] | PROMPT]", config.KeyDiffers, "sends Codex's review request (review_prompts.rs) as the root agent's turn; Codex runs a dedicated review thread with its review rubric"},
	{"--collaboration-mode", config.KeyNotYet, "the SDK passes it only when a thread sets collaborationMode"},
}

// codexEventRows are the JSONL events and items of `codex exec --json`
// (codex-rs/exec/src/exec_events.rs, openai/codex
// 08a1f30ca23f51922d1a4a4965b5ab999b64bead).
var codexEventRows = []compatRow{
	{"thread.started", config.KeyWorks, "thread_id is the grove session id `exec resume` takes"},
	{"turn.started", config.KeyWorks, ""},
	{"turn.completed", config.KeyWorks, "usage is the root thread's token total, as Codex reports it"},
	{"turn.failed", config.KeyDiffers, "after an error event in the turn, or a turn the root ended errored or interrupted; Codex prints neither turn.completed nor turn.failed for an interrupted turn, grove prints turn.failed so a reader waiting for the turn's end (the SDK's run()) is not left waiting"},
	{"error", config.KeyWorks, "errors and stream retries"},
	{"item.started / item.updated / item.completed", config.KeyWorks, "item ids are item_0, item_1, ..."},
	{"item: agent_message", config.KeyDiffers, "the root agent's messages; a blank message is not printed (Codex prints it)"},
	{"item: reasoning", config.KeyWorks, "the reasoning text the provider streams, completed when the reasoning ends"},
	{"item: command_execution", config.KeyDiffers, "exec_command: started, completed / failed / declined. `command` is the cmd the model wrote (Codex shell-quotes its argv, `bash -lc 'echo hi'`); grove adds an item.updated per output chunk so a live reader sees the output (Codex prints none)"},
	{"item: file_change", config.KeyWorks, "apply_patch, completed or failed; paths and kinds from the patch"},
	{"item: mcp_tool_call", config.KeyDiffers, "result.content is the text the model was given (no block for no text); structured_content is null and result has no `_meta`: grove's MCP call keeps only the text"},
	{"item: collab_tool_call", config.KeyDiffers, "spawn_agent, send_input, wait, close_agent; agents_states is empty"},
	{"item: todo_list", config.KeyWorks, "update_plan, completed at the end of the turn"},
	{"item: error", config.KeyWorks, "warnings"},
	{"item: web_search", config.KeyDiffers, "the Responses hosted web search, completed with its query and action (search, open_page, find_in_page, other). Codex also flattens the search's own id into the item, printing `id` twice; grove prints the item id once. No item.started: grove hears of a search once it is done"},
	{"item: plan, item.plan.delta", config.KeyNotYet, "grove has no plan mode"},
	{"request_user_input", config.KeyNotYet, ""},
}

// appServerMethodRows are Codex's app-server methods and what `grove
// app-server` answers (docs/app-server.md); the app-server work fills it.
var appServerMethodRows = []compatRow{}

// execConformance lists the cases of openai/codex
// codex-rs/exec/tests/suite that the exec conformance suite
// (codex_exec_conformance_test.go) ports, and the ones it does not, with
// the reason. Rendered into docs/codex-compat.md.
var execConformance = []compatRow{
	{"resume.rs (14 cases: --last, by id, PROMPT resume ID, --all and the cwd filter, global flags after the subcommand, output schema, images, overrides in the header, the 'cannot be used with' and 'No saved session found with ID' errors)", config.KeyWorks, "TestCodexExecResume*"},
	{"resume_verification.rs (4 cases)", config.KeyWorks, "`--json resume --last PROMPT`; a UUID (with or without dashes) or any positional before --last is refused"},
	{"prompt_stdin.rs (6 cases)", config.KeyWorks, "the stdin prompt keeps its trailing newline; empty stdin: exit 1, `No prompt provided via stdin.`, no rollout"},
	{"originator.rs (2 cases)", config.KeyWorks, "`Originator: codex_exec`, `CODEX_INTERNAL_ORIGINATOR_OVERRIDE`"},
	{"client_metadata.rs (2 cases)", config.KeyWorks, "x-codex-turn-metadata with turn_id; `exec review` refuses the flag"},
	{"broken_pipe.rs json_streaming_exits_cleanly_when_stdout_closes", config.KeyWorks, "exit 0, the turn interrupted and recorded"},
	{"output_schema.rs (2 cases)", config.KeyWorks, "text.format on /v1/responses"},
	{"server_error_exit.rs exits_non_zero_when_server_reports_error", config.KeyWorks, ""},
	{"auth_env.rs exec_uses_codex_api_key_env_var", config.KeyWorks, ""},
	{"add_dir.rs (2 cases)", config.KeyWorks, ""},
	{"agents_md.rs (5 cases)", config.KeyWorks, "AGENTS.md as a user-role block; AGENTS.override.md shadows it; invalid UTF-8 warned on stderr and as a JSONL error item, for the project's and $CODEX_HOME's file"},
	{"approval_policy.rs (3 cases)", config.KeyWorks, "the header's approval line; --full-auto and --dangerously-bypass-approvals-and-sandbox are approval never"},
	{"ephemeral.rs (3 cases)", config.KeyWorks, "--ephemeral writes no rollout unless CODEX_MATERIALIZE_EPHEMERAL_ROLLOUTS=1"},
	{"output_last_message.rs output_last_message_does_not_follow_symlink", config.KeyWorks, "`Failed to write last message file`; the link's target is untouched"},
	{"mcp_required_exit.rs exits_non_zero_when_required_mcp_server_fails_to_initialize", config.KeyWorks, "exit 1, `required MCP servers failed to initialize: NAME`"},
	{"apply_patch.rs (3 cases)", config.KeyWorks, "custom and function apply_patch calls; `grove --codex-run-as-apply-patch PATCH` is the standalone apply_patch CLI"},
	{"sandbox.rs (5 cases)", config.KeyWorks, "run as exec_command under `grove exec --sandbox …` (Codex spawns under its sandbox directly); grove refuses a workdir outside the workspace, so the command-cwd case changes directory in the command"},
	{"binary_recovery.rs (2 cases)", config.KeyWorks, "the binary deleted mid-run with no grove on PATH: the run completes"},
	{"fork.rs exec_fork_by_id_creates_new_session_with_copied_history", config.KeyWorks, "`exec --fork ID PROMPT`: a new rollout with the copied history"},
	{"sigint_exit_code.rs (2 cases)", config.KeyWorks, "the real binary: SIGINT mid-stream, and after a failed stream, exits 130"},
	{"review.rs (4 cases)", config.KeyDiffers, "`exec review` sends Codex's review request (review_prompts.rs) as the root agent's turn; Codex runs a dedicated review thread with its review rubric"},
	{"core/tests/suite/cli_stream.rs (9 cases that drive codex exec)", config.KeyWorks, "custom Responses and Chat providers (one answer line, /v1/responses), openai_base_url, model_instructions_file and experimental_instructions_file (also from a --profile), the rollout's layout and session_meta, git info in session_meta"},
	{"session.rs json_mode_emits_session_configured_event", config.KeyDiffers, "grove prints Codex's current JSONL: thread.started carries the session id; the legacy session_configured line is not emitted"},
	{"core/tests/suite/cli_stream.rs personal access token cases (2)", config.KeyNotYet, "not applicable: ChatGPT sign-in and personal access tokens are OpenAI's account system; grove uses API keys"},
	{"not_so_yolo.rs, approve_all.rs, prehook.rs (3), system_prompt.rs", config.KeyNotYet, "not applicable: --not-so-yolo, --approve-all, --prehook-*, --system-prompt are not flags of Codex's exec CLI (codex-rs/exec/src/cli.rs)"},
	{"linux_sandbox_smoke.rs (2 cases)", config.KeyNotYet, "not applicable: opt-in smoke tests of Codex's bwrap and Landlock helpers under Ubuntu's AppArmor profile"},
	{"issue 34 cases: resumed turn in the current cwd, OPENAI_BASE_URL keeps /v1/responses, aggregated_output is the command's own, required MCP server failure exits 1, stream_max_retries vs request_max_retries, the stderr header, $CODEX_HOME/AGENTS.md without config.toml", config.KeyWorks, "TestCodexExec* (cited to the Codex sources they follow)"},
}
