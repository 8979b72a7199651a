package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
)

// AskUserFunc puts questions to the user and waits for the answer; a nil
// response with a nil error means the user dismissed them.
type AskUserFunc func(ctx context.Context, questions []protocol.UserInputQuestion) (*protocol.UserInputResponse, error)

// ErrNoOneToAsk is AskUserFunc's answer when nobody can answer now.
var ErrNoOneToAsk = errors.New("no one can answer")

type requestUserInput struct{}

// NewRequestUserInput returns Codex's request_user_input tool.
func NewRequestUserInput() Tool { return requestUserInput{} }

// requestUserInputSchema is Codex's schema (codex-rs/tools/src/
// request_user_input_tool.rs), descriptions included: models were trained
// on it.
const requestUserInputSchema = `{
  "type": "object",
  "properties": {
    "questions": {
      "type": "array",
      "description": "Questions to show the user. Prefer 1 and do not exceed 3",
      "minItems": 1,
      "maxItems": 3,
      "items": {
        "type": "object",
        "properties": {
          "id": {"type": "string", "description": "Stable identifier for mapping answers (snake_case)."},
          "header": {"type": "string", "description": "Short header label shown in the UI (12 or fewer chars)."},
          "question": {"type": "string", "description": "Single-sentence prompt shown to the user."},
          "options": {
            "type": "array",
            "description": "Provide 2-3 mutually exclusive choices. Put the recommended option first and suffix its label with \"(Recommended)\". Do not include an \"Other\" option in this list; the client will add a free-form \"Other\" option automatically.",
            "items": {
              "type": "object",
              "properties": {
                "label": {"type": "string", "description": "User-facing label (1-5 words)."},
                "description": {"type": "string", "description": "One short sentence explaining impact/tradeoff if selected."}
              },
              "required": ["label", "description"],
              "additionalProperties": false
            }
          },
          "isOther": {"type": "boolean", "description": "Ignored: every question accepts a free-form answer."},
          "isSecret": {"type": "boolean", "description": "Ignored by grove."}
        },
        "required": ["id", "header", "question", "options"],
        "additionalProperties": false
      }
    }
  },
  "required": ["questions"],
  "additionalProperties": false
}`

const requestUserInputDesc = "Request user input for one to three short questions and wait for the response. Before calling this tool, send a user-facing update that summarizes the available choices and why you need them."

func (requestUserInput) Spec() model.ToolSpec {
	return model.ToolSpec{Name: "request_user_input", Description: requestUserInputDesc, Parameters: json.RawMessage(requestUserInputSchema)}
}

// noOneToAskMsg tells the model what to do instead.
const noOneToAskMsg = "request_user_input is unavailable: no one can answer questions in this session (grove exec, or an agent that runs without a user). Decide with your best judgement and state the assumption you made, or end your turn and ask in your final message."

func (requestUserInput) Run(ctx context.Context, env *Env, raw json.RawMessage) Result {
	var a struct {
		Questions []protocol.UserInputQuestion `json:"questions"`
	}
	if err := decode("request_user_input", raw, &a); err != nil {
		return Errorf("%v", err)
	}
	seen := map[string]bool{}
	for i := range a.Questions {
		q := &a.Questions[i]
		if len(q.Options) == 0 {
			return Errorf("request_user_input requires non-empty options for every question")
		}
		if strings.TrimSpace(q.ID) == "" || seen[q.ID] {
			return Errorf("request_user_input: question %d needs a unique non-empty id (answers are keyed by it)", i+1)
		}
		seen[q.ID] = true
		q.IsOther, q.IsSecret = true, false // as Codex: a free-form answer is always possible
	}
	if env == nil || env.AskUser == nil {
		return Errorf("%s", noOneToAskMsg)
	}
	resp, err := env.AskUser(ctx, a.Questions)
	switch {
	case errors.Is(err, ErrNoOneToAsk):
		return Errorf("%s", noOneToAskMsg)
	case err != nil && ctx.Err() != nil:
		return Result{Output: "request_user_input: interrupted before the user answered", IsError: true}
	case err != nil:
		return Errorf("request_user_input: %v", err)
	case resp == nil:
		return Errorf("request_user_input was cancelled before receiving a response")
	}
	if resp.Answers == nil {
		resp.Answers = map[string]protocol.UserInputAnswer{}
	}
	out, err := json.Marshal(resp)
	if err != nil {
		return Errorf("request_user_input: %v", err)
	}
	return Result{Output: string(out), Summary: fmt.Sprintf("asked the user %d question(s)", len(a.Questions))}
}
