package protocol

// request_user_input (Codex's tool and its app-server request
// item/tool/requestUserInput): the model asks the user one to three short
// questions with options; a front end shows them and answers, or the user
// dismisses them. Field names are Codex's (codex-rs/protocol/src/
// request_user_input.rs), so the app-server forwards them as they are.

// UserInputOption is one choice of a question.
type UserInputOption struct {
	Label       string `json:"label"`
	Description string `json:"description"`
}

// UserInputQuestion is one question.
type UserInputQuestion struct {
	ID       string `json:"id"`
	Header   string `json:"header"`
	Question string `json:"question"`
	// IsOther: the user may answer in their own words besides the
	// options (Codex sets it on every question).
	IsOther  bool              `json:"isOther"`
	IsSecret bool              `json:"isSecret"`
	Options  []UserInputOption `json:"options,omitempty"`
}

// UserInputRequest is a pending request_user_input call.
type UserInputRequest struct {
	// ID names the request for the answer (Op.UserInputID).
	ID        string              `json:"id"`
	ThreadID  ThreadID            `json:"thread_id"`
	CallID    string              `json:"call_id"`
	TurnID    string              `json:"turn_id,omitempty"`
	Questions []UserInputQuestion `json:"questions"`
}

// UserInputAnswer is the answer to one question: the chosen option labels
// and/or the user's own words.
type UserInputAnswer struct {
	Answers []string `json:"answers"`
}

// UserInputResponse maps question ids to answers (what the model reads).
type UserInputResponse struct {
	Answers map[string]UserInputAnswer `json:"answers"`
}

// Events of a request_user_input call.
const (
	EventUserInputRequested EventType = "user_input_requested"
	// EventUserInputResolved: answered (UserInputResponse set) or
	// dismissed (nil).
	EventUserInputResolved EventType = "user_input_resolved"
)

// OpUserInput answers a request (UserInputID; UserInput nil = dismissed).
const OpUserInput OpType = "user_input"

// UserInputRequestedMsg: a question card should open.
type UserInputRequestedMsg struct{ Request UserInputRequest }

// UserInputResolvedMsg: the request was answered (Response non-nil) or
// dismissed, and its card should close.
type UserInputResolvedMsg struct {
	Request  UserInputRequest
	Response *UserInputResponse
}

func (UserInputRequestedMsg) Kind() EventType { return EventUserInputRequested }
func (UserInputResolvedMsg) Kind() EventType  { return EventUserInputResolved }
func (UserInputRequestedMsg) isEventMsg()     {}
func (UserInputResolvedMsg) isEventMsg()      {}
