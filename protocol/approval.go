package protocol

// ApprovalKind says what an approval request is about.
type ApprovalKind string

const (
	ApprovalExec       ApprovalKind = "exec"
	ApprovalPatch      ApprovalKind = "patch"
	ApprovalWorkingDir ApprovalKind = "working_directory"
)

// ApprovalRequest asks the user to decide on one action of one thread.
type ApprovalRequest struct {
	// ID is unique per request; the answering Op carries it back.
	ID string `json:"id"`
	// ThreadID is the thread that asks; RouteThreadID the session whose
	// user is asked (the root for sub-agent working-directory requests).
	ThreadID      ThreadID     `json:"thread_id"`
	RouteThreadID ThreadID     `json:"route_thread_id,omitempty"`
	Kind          ApprovalKind `json:"kind"`
	CallID        string       `json:"call_id,omitempty"`
	// Chain labels the requester: root → … → child (role/name labels).
	Chain []string `json:"chain,omitempty"`
	// Command (exec), Patch summary (patch) or the directory (working_directory).
	Command string   `json:"command,omitempty"`
	Cwd     string   `json:"cwd,omitempty"`
	Patch   string   `json:"patch,omitempty"`
	Files   []string `json:"files,omitempty"`
	Dir     string   `json:"dir,omitempty"`
	// Host (working_directory): the [hosts.<name>] machine a project's
	// template would send the agent to; Dir is then "<host>:".
	Host   string `json:"host,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Sandbox is the sandbox an approved command runs in (exec);
	// danger-full-access under a sandboxed thread is an escalation.
	Sandbox SandboxMode `json:"sandbox,omitempty"`
	// Outside (patch) lists what the change would write outside the
	// writable roots, each with why: approving it writes past the
	// sandbox, as an escalated command runs past it.
	Outside []string `json:"outside,omitempty"`
	// MCP marks a call of an MCP server's tool (Kind exec, Command the
	// tool's name as the model sees it): "approve for session" covers
	// that server's tool, whatever its arguments, unless NoRemember.
	MCP *MCPToolApproval `json:"mcp,omitempty"`
	// OnceOnly: the engine will not remember an approve-for-session
	// answer to this request (a command escalated past the sandbox of a
	// sandboxed thread, a command with no sandbox, an MCP tool that asks
	// before every call), so it approves this request only and front ends
	// do not offer it. Set by the engine when it publishes the request.
	OnceOnly bool `json:"once_only,omitempty"`
}

// MCPToolApproval is what an MCP tool call's approval is about. Server and
// Tool (the server's own name for it) are what an approve-for-session
// decision remembers, as Codex's McpToolApprovalKey (server, tool_name):
// the arguments are not part of it, so approving write_note for the
// session approves every later write_note of that server.
type MCPToolApproval struct {
	Server string `json:"server"`
	Tool   string `json:"tool"`
	// NoRemember: the tool's approval_mode (prompt, writes) asks before
	// every call, so approve-for-session approves this call only (Codex's
	// normalize_approval_decision_for_mode) and front ends do not offer it.
	NoRemember bool `json:"no_remember,omitempty"`
}

// OffersSession reports whether approve-for-session means more than
// approve for this request: false when the engine would not remember it
// (OnceOnly) and for an MCP tool whose approval mode asks before every call.
func (r *ApprovalRequest) OffersSession() bool {
	return !r.OnceOnly && (r.MCP == nil || !r.MCP.NoRemember)
}

// ReviewDecision answers an ApprovalRequest.
type ReviewDecision string

const (
	DecisionApproved           ReviewDecision = "approved"
	DecisionApprovedForSession ReviewDecision = "approved_for_session"
	DecisionDenied             ReviewDecision = "denied"
	DecisionAbort              ReviewDecision = "abort"
)

// Approved reports whether the decision lets the action run.
func (d ReviewDecision) Approved() bool {
	return d == DecisionApproved || d == DecisionApprovedForSession
}

// ApprovalResolution says how a request stopped waiting, so a front end
// tells a person's answer from a turn that ended before anyone answered:
// both reach the asking tool as DecisionAbort, but only one was "denied".
type ApprovalResolution string

const (
	// ResolvedAnswered: someone answered (the user, a client, a hook);
	// the zero value, as in logs written before the field existed.
	ResolvedAnswered ApprovalResolution = ""
	// ResolvedByPolicy: decided by policy; nobody was asked.
	ResolvedByPolicy ApprovalResolution = "policy"
	// ResolvedCancelled: the waiting turn was interrupted or ended, or its
	// agent closed, before an answer came (Decision is DecisionAbort).
	ResolvedCancelled ApprovalResolution = "cancelled"
)
