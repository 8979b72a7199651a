package protocol

import (
	"encoding/json"

	"github.com/grovecli/grove/core/rpc"
)

// Wire types of `grove app-server`: Codex app-server v2 (Codex 0.169 shapes),
// JSON-RPC 2.0 messages without the "jsonrpc" header, one per line.
// grove-only additions (thread/note/set, thread/note/updated) are marked.

// RPCMessage is any JSON-RPC message: a request (ID and Method), a
// notification (Method only) or a response (ID with Result or Error);
// core/rpc reads and writes them.
type RPCMessage = rpc.Message

// RPCError is a JSON-RPC error object.
type RPCError = rpc.Error

// JSON-RPC error codes used by the servers.
const (
	RPCParseError     = rpc.CodeParseError
	RPCInvalidRequest = rpc.CodeInvalidRequest
	RPCMethodNotFound = rpc.CodeMethodNotFound
	RPCInvalidParams  = rpc.CodeInvalidParams
	RPCInternalError  = rpc.CodeInternalError
	// RPCOverloaded is Codex's backpressure answer: the request queue is full.
	RPCOverloaded = rpc.CodeOverloaded
)

// RPCOverloadedMessage is Codex's wording for RPCOverloaded.
const RPCOverloadedMessage = rpc.OverloadedMessage

// AppInitializeParams is the initialize request.
type AppInitializeParams struct {
	ClientInfo *struct {
		Name    string `json:"name"`
		Title   string `json:"title,omitempty"`
		Version string `json:"version"`
	} `json:"clientInfo"`
	// Capabilities are Codex's InitializeCapabilities.
	Capabilities *struct {
		ExperimentalAPI bool `json:"experimentalApi"`
		// OptOutNotificationMethods are notifications the client does
		// not want sent (exact method names).
		OptOutNotificationMethods []string `json:"optOutNotificationMethods"`
	} `json:"capabilities"`
}

// AppInitializeResponse answers initialize.
type AppInitializeResponse struct {
	CodexHome      string `json:"codexHome"`
	PlatformFamily string `json:"platformFamily"`
	PlatformOs     string `json:"platformOs"`
	UserAgent      string `json:"userAgent"`
}

// AppThreadStartParams is thread/start (the fields grove honours).
type AppThreadStartParams struct {
	Cwd            *string `json:"cwd"`
	Model          *string `json:"model"`
	ApprovalPolicy *string `json:"approvalPolicy"`
	Sandbox        *string `json:"sandbox"`
	// Ephemeral threads keep no rollout and are never listed.
	Ephemeral *bool `json:"ephemeral"`
	// ThreadSource is the client's analytics label, echoed on the thread.
	ThreadSource *string `json:"threadSource"`
}

// AppThreadResumeParams is thread/resume.
type AppThreadResumeParams struct {
	ThreadID string `json:"threadId"`
	// ExcludeTurns answers without the past turns (a client that has
	// them already).
	ExcludeTurns   bool    `json:"excludeTurns"`
	Cwd            *string `json:"cwd"`
	Model          *string `json:"model"`
	ApprovalPolicy *string `json:"approvalPolicy"`
	Sandbox        *string `json:"sandbox"`
}

// AppThreadListParams is thread/list; Cursor is an opaque offset.
type AppThreadListParams struct {
	Cursor *string `json:"cursor"`
	Limit  *int    `json:"limit"`
	// Cwd keeps the threads started in that directory; ModelProviders
	// those of these providers (empty: all).
	// (Codex's ThreadListCwdFilter: one directory or a list).
	Cwd            json.RawMessage `json:"cwd"`
	ModelProviders []string        `json:"modelProviders"`
	// Archived lists the archived threads instead of the others.
	Archived *bool `json:"archived"`
	// SourceKinds keeps the threads of these ThreadSourceKinds (empty:
	// the interactive ones, i.e. not sub-agents).
	SourceKinds []string `json:"sourceKinds"`
}

// AppThreadReadParams is thread/read.
type AppThreadReadParams struct {
	ThreadID     string `json:"threadId"`
	IncludeTurns bool   `json:"includeTurns"`
}

// AppThreadTurnsListParams is thread/turns/list: one page of a thread's
// turns. Cursor is a turn id this server returned (the page starts at that
// turn); SortDirection is asc or desc (default desc, newest first);
// ItemsView is full, summary (default) or notLoaded.
type AppThreadTurnsListParams struct {
	ThreadID      string  `json:"threadId"`
	Cursor        *string `json:"cursor"`
	Limit         *int    `json:"limit"`
	SortDirection *string `json:"sortDirection"`
	ItemsView     *string `json:"itemsView"`
}

// AppThreadTurnsListResponse is Codex's ThreadTurnsListResponse:
// NextCursor continues in the same direction, BackwardsCursor starts at
// the page's first turn for paging the other way.
type AppThreadTurnsListResponse struct {
	Data            []AppTurn `json:"data"`
	NextCursor      *string   `json:"nextCursor"`
	BackwardsCursor *string   `json:"backwardsCursor"`
}

// AppTurnStartParams is turn/start.
type AppTurnStartParams struct {
	ThreadID string         `json:"threadId"`
	Input    []AppUserInput `json:"input"`
	// The per-turn overrides (Codex's TurnStartParams): they hold for this
	// turn and the ones after it (outputSchema: this turn only).
	Cwd            *string         `json:"cwd,omitempty"`
	ApprovalPolicy json.RawMessage `json:"approvalPolicy,omitempty"`
	SandboxPolicy  json.RawMessage `json:"sandboxPolicy,omitempty"`
	Model          *string         `json:"model,omitempty"`
	Effort         *string         `json:"effort,omitempty"`
	Summary        *string         `json:"summary,omitempty"`
	OutputSchema   json.RawMessage `json:"outputSchema,omitempty"`
}

// AppTurnInterruptParams is turn/interrupt.
type AppTurnInterruptParams struct {
	ThreadID string `json:"threadId"`
	TurnID   string `json:"turnId"`
}

// AppThreadNoteSetParams is thread/note/set (grove-only, seed 000).
type AppThreadNoteSetParams struct {
	ThreadID string  `json:"threadId"`
	Note     *string `json:"note"`
}

// AppThreadNoteSetResponse answers thread/note/set with the normalized note
// (null when cleared).
type AppThreadNoteSetResponse struct {
	ThreadID string  `json:"threadId"`
	Note     *string `json:"note"`
}

// AppThreadNoteUpdatedNotification is thread/note/updated (grove-only).
type AppThreadNoteUpdatedNotification struct {
	ThreadID string  `json:"threadId"`
	Note     *string `json:"note"`
}

// AppUserInput is one element of turn/start's input (text, image, localImage).
type AppUserInput struct {
	Type         string `json:"type"`
	Text         string `json:"text,omitempty"`
	TextElements []any  `json:"text_elements,omitempty"`
	URL          string `json:"url,omitempty"`
	Path         string `json:"path,omitempty"`
}

// AppThread is Codex's Thread.
type AppThread struct {
	ID             string         `json:"id"`
	SessionID      string         `json:"sessionId"`
	ParentThreadID *string        `json:"parentThreadId"`
	AgentRole      *string        `json:"agentRole"`
	AgentNickname  *string        `json:"agentNickname"`
	CliVersion     string         `json:"cliVersion"`
	CreatedAt      int64          `json:"createdAt"`
	UpdatedAt      int64          `json:"updatedAt"`
	Cwd            string         `json:"cwd"`
	Ephemeral      bool           `json:"ephemeral"`
	Model          *string        `json:"model"`
	ModelProvider  string         `json:"modelProvider"`
	ReasoningEff   *string        `json:"reasoningEffort"`
	Name           *string        `json:"name"`
	Path           *string        `json:"path"`
	Preview        string         `json:"preview"`
	ProjectID      *string        `json:"projectId"`
	Source         any            `json:"source"`
	Status         AppThreadState `json:"status"`
	Turns          []AppTurn      `json:"turns"`
	// ForkedFromID is the thread a thread/fork copied.
	ForkedFromID *string `json:"forkedFromId"`
	// ThreadSource echoes thread/start's threadSource.
	ThreadSource *string `json:"threadSource,omitempty"`
	// Note is grove's thread note (seed 000); Codex clients ignore it.
	Note *string `json:"note,omitempty"`
}

// AppThreadState is Codex's ThreadStatus: notLoaded, idle, systemError or
// active (with activeFlags).
type AppThreadState struct {
	Type        string   `json:"type"`
	ActiveFlags []string `json:"activeFlags,omitempty"`
}

// MarshalJSON writes activeFlags (possibly empty) exactly for active.
func (s AppThreadState) MarshalJSON() ([]byte, error) {
	if s.Type == "active" {
		flags := s.ActiveFlags
		if flags == nil {
			flags = []string{}
		}
		return json.Marshal(struct {
			Type        string   `json:"type"`
			ActiveFlags []string `json:"activeFlags"`
		}{s.Type, flags})
	}
	return json.Marshal(struct {
		Type string `json:"type"`
	}{s.Type})
}

// AppSubAgentSource is the source of a spawned thread.
type AppSubAgentSource struct {
	SubAgent struct {
		ThreadSpawn AppThreadSpawn `json:"thread_spawn"`
	} `json:"subAgent"`
}

// AppThreadSpawn names the parent of a spawned thread.
type AppThreadSpawn struct {
	ParentThreadID string  `json:"parent_thread_id"`
	Depth          int     `json:"depth"`
	AgentRole      *string `json:"agent_role"`
	AgentNickname  *string `json:"agent_nickname"`
}

// AppTurn is Codex's Turn.
type AppTurn struct {
	ID          string        `json:"id"`
	Items       []any         `json:"items"`
	Status      string        `json:"status"` // completed, interrupted, failed, inProgress
	Error       *AppTurnError `json:"error"`
	StartedAt   *int64        `json:"startedAt"`
	CompletedAt *int64        `json:"completedAt"`
	DurationMs  *int64        `json:"durationMs"`
	// ItemsView says what Items holds: full, summary or notLoaded.
	ItemsView string `json:"itemsView,omitempty"`
}

// AppTurnError is Codex's TurnError.
type AppTurnError struct {
	Message string `json:"message"`
}

// AppSandboxPolicy is Codex's SandboxPolicy (type readOnly, workspaceWrite
// or dangerFullAccess).
type AppSandboxPolicy struct {
	Type          string   `json:"type"`
	NetworkAccess *bool    `json:"networkAccess,omitempty"`
	WritableRoots []string `json:"writableRoots,omitempty"`
	// ExcludeTmpdirEnvVar and ExcludeSlashTmp are workspaceWrite's
	// (sandbox_workspace_write.exclude_tmpdir_env_var / exclude_slash_tmp).
	ExcludeTmpdirEnvVar *bool `json:"excludeTmpdirEnvVar,omitempty"`
	ExcludeSlashTmp     *bool `json:"excludeSlashTmp,omitempty"`
}

// AppThreadStartResponse answers thread/start and thread/resume.
type AppThreadStartResponse struct {
	Thread            AppThread        `json:"thread"`
	Model             string           `json:"model"`
	ModelProvider     string           `json:"modelProvider"`
	ReasoningEffort   *string          `json:"reasoningEffort"`
	Cwd               string           `json:"cwd"`
	ApprovalPolicy    string           `json:"approvalPolicy"`
	ApprovalsReviewer string           `json:"approvalsReviewer"`
	Sandbox           AppSandboxPolicy `json:"sandbox"`
	// InstructionSources are the instruction files the thread's model
	// sees: the user's global AGENTS.md, then the project's.
	InstructionSources []string `json:"instructionSources"`
}

// AppThreadListResponse answers thread/list.
type AppThreadListResponse struct {
	Data       []AppThread `json:"data"`
	NextCursor *string     `json:"nextCursor"`
}

// AppThreadReadResponse answers thread/read.
type AppThreadReadResponse struct {
	Thread AppThread `json:"thread"`
}

// AppTurnStartResponse answers turn/start.
type AppTurnStartResponse struct {
	Turn AppTurn `json:"turn"`
}

// Thread items (Codex ThreadItem variants grove produces).

// AppUserMessageItem is a userMessage item.
type AppUserMessageItem struct {
	Type     string         `json:"type"` // userMessage
	ClientID *string        `json:"clientId,omitempty"`
	ID       string         `json:"id"`
	Content  []AppUserInput `json:"content"`
}

// AppAgentMessageItem is an agentMessage item.
type AppAgentMessageItem struct {
	Type string `json:"type"` // agentMessage
	ID   string `json:"id"`
	Text string `json:"text"`
}

// AppReasoningItem is a reasoning item.
type AppReasoningItem struct {
	Type    string   `json:"type"` // reasoning
	ID      string   `json:"id"`
	Summary []string `json:"summary"`
	Content []string `json:"content"`
}

// AppCommandExecutionItem is a commandExecution item (exec_command).
type AppCommandExecutionItem struct {
	Type             string  `json:"type"` // commandExecution
	ID               string  `json:"id"`
	Command          string  `json:"command"`
	Cwd              string  `json:"cwd"`
	CommandActions   []any   `json:"commandActions"`
	Status           string  `json:"status"` // inProgress, completed, failed, declined
	AggregatedOutput *string `json:"aggregatedOutput"`
	ExitCode         *int    `json:"exitCode"`
	DurationMs       *int64  `json:"durationMs"`
	// ProcessID is the unified exec session the command ran in (null
	// until it is known, at completion).
	ProcessID *string `json:"processId"`
}

// AppFileChangeItem is a fileChange item (apply_patch).
type AppFileChangeItem struct {
	Type    string          `json:"type"` // fileChange
	ID      string          `json:"id"`
	Changes []AppFileChange `json:"changes"`
	Status  string          `json:"status"`
}

// AppFileChange is one file of a fileChange item.
type AppFileChange struct {
	Path string        `json:"path"`
	Kind AppChangeKind `json:"kind"`
	Diff string        `json:"diff"`
}

// AppChangeKind is add, delete or update (with an optional move).
type AppChangeKind struct {
	Type     string  `json:"type"`
	MovePath *string `json:"move_path,omitempty"`
}

// AppDynamicToolCallItem is a dynamicToolCall item (grove's other tools).
type AppDynamicToolCallItem struct {
	Type         string           `json:"type"` // dynamicToolCall
	ID           string           `json:"id"`
	Tool         string           `json:"tool"`
	Arguments    json.RawMessage  `json:"arguments"`
	Status       string           `json:"status"` // inProgress, completed, failed
	Success      *bool            `json:"success"`
	ContentItems []AppContentItem `json:"contentItems"`
	DurationMs   *int64           `json:"durationMs"`
}

// AppMcpToolCallItem is a call to an MCP server's tool (Codex's
// McpToolCallThreadItem).
type AppMcpToolCallItem struct {
	Type       string           `json:"type"` // mcpToolCall
	ID         string           `json:"id"`
	Server     string           `json:"server"`
	Tool       string           `json:"tool"`
	Arguments  json.RawMessage  `json:"arguments"`
	Status     string           `json:"status"` // inProgress, completed, failed
	Result     *AppMcpResult    `json:"result"`
	Error      *AppMcpToolError `json:"error"`
	DurationMs *int64           `json:"durationMs"`
}

// AppMcpResult is Codex's McpToolCallResult: the content blocks the model
// was given.
type AppMcpResult struct {
	Content []any `json:"content"`
}

// AppMcpToolError is Codex's McpToolCallError.
type AppMcpToolError struct {
	Message string `json:"message"`
}

// AppContentItem is a text output of a dynamic tool call.
type AppContentItem struct {
	Type string `json:"type"` // inputText
	Text string `json:"text"`
}

// AppCollabToolCallItem is a collabAgentToolCall item (spawn/wait/…).
type AppCollabToolCallItem struct {
	Type              string                    `json:"type"` // collabAgentToolCall
	ID                string                    `json:"id"`
	Tool              string                    `json:"tool"`
	Status            string                    `json:"status"`
	SenderThreadID    string                    `json:"senderThreadId"`
	ReceiverThreadIDs []string                  `json:"receiverThreadIds"`
	AgentsStates      map[string]AppCollabState `json:"agentsStates"`
	Prompt            *string                   `json:"prompt"`
}

// AppCollabState is one agent's state in a collab item.
type AppCollabState struct {
	Status  string  `json:"status"`
	Message *string `json:"message"`
}

// AppCommandApprovalParams is item/commandExecution/requestApproval.
type AppCommandApprovalParams struct {
	ThreadID    string  `json:"threadId"`
	TurnID      string  `json:"turnId"`
	ItemID      string  `json:"itemId"`
	ApprovalID  *string `json:"approvalId"`
	Command     *string `json:"command"`
	Cwd         *string `json:"cwd"`
	Reason      *string `json:"reason"`
	StartedAtMs int64   `json:"startedAtMs"`
}

// AppFileChangeApprovalParams is item/fileChange/requestApproval.
type AppFileChangeApprovalParams struct {
	ThreadID    string  `json:"threadId"`
	TurnID      string  `json:"turnId"`
	ItemID      string  `json:"itemId"`
	Reason      *string `json:"reason"`
	GrantRoot   *string `json:"grantRoot"`
	StartedAtMs int64   `json:"startedAtMs"`
}

// AppApprovalResponse is the client's answer to an approval request:
// accept, acceptForSession, decline or cancel.
type AppApprovalResponse struct {
	Decision json.RawMessage `json:"decision"`
}

// AppTokenUsageBreakdown is Codex's TokenUsageBreakdown.
type AppTokenUsageBreakdown struct {
	InputTokens           int64 `json:"inputTokens"`
	CachedInputTokens     int64 `json:"cachedInputTokens"`
	OutputTokens          int64 `json:"outputTokens"`
	ReasoningOutputTokens int64 `json:"reasoningOutputTokens"`
	TotalTokens           int64 `json:"totalTokens"`
}

// NewAppTokenUsage converts grove's counters.
func NewAppTokenUsage(u TokenUsage) AppTokenUsageBreakdown {
	return AppTokenUsageBreakdown{
		InputTokens: u.InputTokens, CachedInputTokens: u.CachedInputTokens,
		OutputTokens: u.OutputTokens, ReasoningOutputTokens: u.ReasoningTokens, TotalTokens: u.TotalTokens,
	}
}
