package appserver

// CompatRow is one line of docs/codex-compat-servers.md: a Codex protocol
// element and what grove does with it. The tests drive the server with
// every method row, so the page cannot claim what the server does not do.
type CompatRow struct {
	Name   string // method or item
	Status string // works | differs | not yet
	Note   string // how it differs, or what answers it
	Test   string // the test that covers the row
}

// Compat lists Codex 0.169's app-server methods an IDE uses and grove's
// answer. "not yet" methods answer -32601 (method not found).
var Compat = []CompatRow{
	{"initialize", "works", "codexHome is $GROVE_HOME; userAgent starts with the client's name (the originator of its model requests); optOutNotificationMethods honoured; a name that is no header value refused with Codex's error", "TestCodexInitializeUsesClientNameAsOriginator"},
	{"account/read", "differs", "an API-key account when the provider's key is set, none otherwise; requiresOpenaiAuth only for the openai provider; no ChatGPT login", "TestIDEStartupSequence"},
	{"config/read", "differs", "the user layer is grove's config.toml and the sessionFlags layer its -c overrides; header and env values are redacted", "TestIDEStartupSequence"},
	{"config/value/write", "differs", "edits the user layer (grove's config.toml) in place and atomically, then reloads it: config/read, model/list (the new provider's /models) and threads started afterwards use the new values (TestAppServerConfigWriteSwitchesProvider runs the real command); a result a new thread could not load refused with configValidationError \"Invalid configuration: …\" as Codex's config service refuses it; expectedVersion is config/read's sha256 of the file; keys grove does not know refused (configSchemaUnknownKey); okOverridden when a -c override sets the key", "TestCodexConfigValueWriteReplacesValue"},
	{"config/batchWrite", "differs", "as config/value/write, every edit in one atomic write; with reloadUserConfig loaded threads keep their model, effort, approval policy and sandbox (Codex's reload keeps them too) and grove has no other per-thread user-layer settings to refresh (hooks, MCP servers and skills are read when a thread loads)", "TestCodexConfigBatchWriteReloadKeepsLoadedThreadModel"},
	{"model/list", "works", "the configured model (default), agents.model_aliases, then the provider's GET /models; includeHidden ignored (nothing is hidden)", "TestIDEStartupSequence"},
	{"mcpServerStatus/list", "differs", "tools of the servers the sessions started (grove starts MCP servers on first use); resources are not listed", "TestIDEStartupSequence"},
	{"thread/start", "works", "ephemeral (no files, no path, never listed) and threadSource honoured; runtimeWorkspaceRoots (absolute only) are extra writable roots of the thread's sandbox, answered back (the cwd when none: the configuration's roots are not listed); instructionSources (read once per loaded thread); no rollout until the first user message (archive, fork, resume and thread/read with turns answer Codex's errors before it)", "TestCodexThreadStartCreatesThreadAndEmitsStarted"},
	{"thread/resume", "works", "excludeTurns honoured", "TestCodexThreadResumeExcludeTurnsAndItemsView"},
	{"thread/list", "works", "cwd (one or many), modelProviders, archived and sourceKinds filters (a root thread is any interactive kind, cli/vscode/exec/appServer: grove does not record which front end started it; a sub-agent is subAgent/subAgentThreadSpawn, archived when its root is, its sessionId its root's; none or empty lists the roots); no sortKey/searchTerm", "TestCodexThreadListFiltersByCwdAndProvider"},
	{"thread/read", "works", "", "TestAppServerSession"},
	{"thread/turns/list", "works", "a page of a loaded or stored thread's turns: sortDirection (default desc), limit (default 50), itemsView full, summary (default: the user's messages and the final agent message) or notLoaded; a cursor is a turn id (nextCursor continues, backwardsCursor is the page's first turn for paging the other way)", "TestCodexThreadTurnsListCanPageBackwardAndForward"},
	{"thread/unsubscribe", "works", "unloads the thread (this connection is its only subscriber); thread/resume loads it again; a connection keeps at most 16 sessions loaded, unloading the least recently used idle one", "TestCodexThreadUnsubscribeUnloads"},
	{"thread/archive", "works", "the rollouts of the thread and of every sub-agent it spawned move to $GROVE_HOME/archived_sessions (thread/archived for each, deepest first); archived threads leave thread/list (archived: true lists them), the TUI picker and --last, and thread/resume and thread/fork refuse them with Codex's error; a loaded idle thread is unloaded first, one another process writes is refused (its rollout lock is held)", "TestCodexThreadArchiveArchivesSpawnedDescendants"},
	{"thread/unarchive", "works", "the rollouts move back to sessions/YYYY/MM/DD; the answered thread is notLoaded with a fresh updatedAt", "TestCodexThreadUnarchiveMovesRolloutBackIntoSessionsDirectory"},
	{"turn/start", "works", "text, image and localImage input; the per-turn overrides cwd, approvalPolicy (names; the granular form is refused), sandboxPolicy (externalSandbox refused), model, effort, summary and outputSchema", "TestCodexTurnStartOverridesTightenPolicy"},
	{"thread/fork", "works", "a new thread continuing a copy of the stored one's conversation (the original is untouched); answered like thread/start, with the copied turns (thread/started carries the same thread); ephemeral: true reads the source from the sessions home and keeps the fork in a temporary store (no path, never listed)", "TestCodexThreadForkEphemeralRemainsPathlessAndOmitsListing"},
	{"turn/steer", "works", "the input reaches the running turn with its next model request; refused when no turn runs or expectedTurnId is not the running one", "TestCodexTurnSteer"},
	{"review/start", "differs", "inline delivery only (detached refused): a review turn on the thread, answered with {turn, reviewThreadId}; enteredReviewMode and exitedReviewMode items, the review text being the model's final message (no Codex review model or JSON findings); empty branch, sha or instructions refused with Codex's errors", "TestCodexReviewStartRunsReviewTurn"},
	{"thread/name/set", "works", "the name is trimmed (blank refused) and kept in the session index; thread/name/updated follows; a stored thread that is not loaded is renamed too", "TestCodexThreadNameSetReflectedInReadListAndResume"},
	{"turn/interrupt", "works", "", "TestInterruptedTurnCompletesInterrupted"},
	{"thread/note/set", "differs", "grove's own method (docs/app-server.md)", "TestAppServerSession"},
	{"createSubagent", "differs", "grove's own method: seed 001's CreateSubagent op on an inbox-surface thread, answered with subagent_created; codex/event/<type> notifications carry every seed-001 event (docs/app-server.md)", "TestAppServerInboxOpsAndEvents"},
	{"listSubagents", "differs", "grove's own method: seed 001's ListSubagents op, answered with subagents_list_response", "TestAppServerInboxOpsAndEvents"},
	{"checkInbox", "differs", "grove's own method: seed 001's CheckInbox op (mark_as_read, default true), answered with inbox_response", "TestAppServerInboxOpsAndEvents"},
	{"replyToSubagent", "differs", "grove's own method: seed 001's ReplyToSubagent op, answered with subagent_reply_success", "TestAppServerInboxOpsAndEvents"},
	{"endSubagent", "differs", "grove's own method: seed 001's EndSubagent op, answered with subagent_ended", "TestAppServerInboxOpsAndEvents"},
	{"skills/list", "differs", "no interface/dependencies metadata; discovery reads the disk each call, so forceReload changes nothing (docs/skills.md)", "TestSkillsList"},
	{"thread/compact/start", "works", "also answered as thread/compact; thread/compacted follows the compaction", "TestThreadCompactStart"},
	{"item: mcpToolCall", "works", "server, tool, arguments, result text or error", "TestIDEStartupSequence"},
}

// CodexCaseDeviations are the cases of Codex's
// codex-rs/app-server/tests/suite/v2 read for the conformance suite that
// grove does not pass, with the reason (the ported, passing cases cite
// their Codex test in cmd/grove/appserver/codex_*_test.go).
var CodexCaseDeviations = []CompatRow{
	{"thread_list.rs thread_list_empty_source_kinds_defaults_to_interactive_only, thread_list_filters_by_source_kind_subagent_thread_spawn, thread_list_filters_by_subagent_variant", "differs", "ported with a spawned sub-agent standing in for the exec, review, compact and other rollouts grove never creates (those kinds list nothing; exec sessions are roots, listed as interactive); a sub-agent's sessionId is its root's, not its own id", "TestCodexThreadListFiltersBySourceKindSubagentThreadSpawn"},
	{"thread_read.rs thread_turns_list_reads_store_history_without_rollout_path, paginated_stored_thread_routes_projected_turns", "differs", "thread/turns/list reads grove's rollouts (thread_turns_list_can_page_backward_and_forward and thread_turns_list_supports_requested_items_view pass); grove has no pluggable thread store nor paginated-history threads", "TestCodexThreadTurnsListSupportsRequestedItemsView"},
	{"thread_unsubscribe.rs thread_unsubscribe_keeps_thread_loaded_until_idle_timeout, thread_unsubscribe_reports_not_subscribed_before_idle_unload (newer than 0.169)", "differs", "the last subscriber's unsubscribe unloads the thread at once (thread/closed; a second unsubscribe is notLoaded): there is no idle timeout nor thread/loaded/list", "TestCodexThreadUnsubscribeUnloads"},
	{"config_rpc.rs config_read_includes_system_layer_and_overrides", "not yet", "no managed (system) config layer: grove reads its config.toml and -c overrides only", ""},
	{"config_rpc.rs config_value_write_replaces_value, config_value_write_rejects_version_conflict, config_batch_write_applies_multiple_edits", "differs", "the cases pass as Codex wrote them (config/read's effective model is the written one); grove also keeps comments and a replaced line's trailing comment, and refuses a file the line editor cannot follow (quoted keys, tables made by dotted keys, arrays of tables) with configValidationError rather than rewriting it", "TestCodexConfigValueWriteReplacesValue"},
	{"model_list.rs list_models_returns_all_models_with_large_limit", "differs", "the list is the configured model, agents.model_aliases and the provider's GET /models with generic effort descriptions, not Codex's bundled presets and their texts", "TestCodexModelListPaginationWorks"},
	{"thread_read.rs thread_read_can_include_turns (text_elements)", "differs", "the case passes except that a stored turn's userMessage has no text_elements: they are echoed live (turn/start's item) but not kept in the rollout", "TestCodexThreadReadCanIncludeTurns"},
	{"review.rs (delivery detached)", "not yet", "review/start runs inline only; the review text is the model's final message, not Codex's JSON findings rendered", "TestCodexReviewStartRunsReviewTurn"},
}
