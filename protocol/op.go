package protocol

// OpType names an operation submitted to the engine.
type OpType string

const (
	OpUserTurn  OpType = "user_turn"
	OpInterrupt OpType = "interrupt"
	OpApproval  OpType = "approval"
	OpSetNote   OpType = "set_note"
	OpClose     OpType = "close_thread"
	OpShutdown  OpType = "shutdown"
	// OpSetModel changes the model / reasoning effort for the thread's next turns.
	OpSetModel OpType = "set_model"
	// OpCompact replaces the thread's history with a summary now (/compact),
	// after the running turn if there is one.
	OpCompact OpType = "compact"
	// OpSetApprovalPolicy changes the approval policy of the whole tree
	// for the tool calls that start after it.
	OpSetApprovalPolicy OpType = "set_approval_policy"
)

// Op is a request into the engine, addressed to one thread.
type Op struct {
	Type     OpType   `json:"type"`
	ThreadID ThreadID `json:"thread_id,omitempty"`
	// user_turn
	Text  string      `json:"text,omitempty"`
	Items []InputItem `json:"items,omitempty"`
	// ClientID (optional) names this input for the front end that sends it:
	// the turn that takes the input lists it in turn_started's client_ids,
	// which is how a front end learns the turn id of what it submitted.
	ClientID string `json:"client_id,omitempty"`
	// approval
	ApprovalID string         `json:"approval_id,omitempty"`
	Decision   ReviewDecision `json:"decision,omitempty"`
	// set_note
	Note string `json:"note,omitempty"`
	// set_model
	Model           string `json:"model,omitempty"`
	ReasoningEffort string `json:"reasoning_effort,omitempty"`
	// set_approval_policy
	ApprovalPolicy ApprovalPolicy `json:"approval_policy,omitempty"`
	// Seed 001's inbox ops: create_subagent (task), check_inbox
	// (mark_as_read, default true; subagent_id filters: grove's
	// addition), reply_to_subagent (subagent_id, message), end_subagent
	// (subagent_id).
	Task       string   `json:"task,omitempty"`
	SubagentID ThreadID `json:"subagent_id,omitempty"`
	Message    string   `json:"message,omitempty"`
	MarkAsRead *bool    `json:"mark_as_read,omitempty"`
	// revert_patch
	Revert *PatchRevert `json:"revert,omitempty"`
	// user_input: the request answered; UserInput nil dismisses it.
	UserInputID string             `json:"user_input_id,omitempty"`
	UserInput   *UserInputResponse `json:"user_input,omitempty"`
}
