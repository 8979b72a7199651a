package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/tools/schema"
	"github.com/grovecli/grove/protocol"
)

// ClaudeAskUserQuestion is Claude Code's question tool; grove puts its
// questions on the same question card as request_user_input's.
const ClaudeAskUserQuestion = "AskUserQuestion"

type claudeAsk struct{}

type askOption struct {
	Label       string `json:"label" required:"true" jsonschema:"The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice."`
	Description string `json:"description" required:"true" jsonschema:"Explanation of what this option means or what will happen if chosen."`
}

type askQuestion struct {
	Question    string      `json:"question" required:"true" jsonschema:"The complete question to ask the user. Should be clear, specific, and end with a question mark."`
	Header      string      `json:"header" required:"true" jsonschema:"Very short label displayed as a chip/tag (max 12 chars)."`
	Options     []askOption `json:"options" required:"true" minItems:"2" jsonschema:"The available choices for this question. Must have 2-4 options. There should be no 'Other' option, that will be provided automatically."`
	MultiSelect bool        `json:"multiSelect" jsonschema:"Set to true to allow the user to select multiple options instead of just one."`
}

type claudeAskArgs struct {
	Questions []askQuestion `json:"questions" required:"true" minItems:"1" jsonschema:"Questions to ask the user (1-4 questions)"`
	// Answers is filled by Claude Code's own UI; a model leaves it out.
	Answers map[string]string `json:"answers" jsonschema:"User answers collected by the permission component"`
}

const claudeAskDesc = `Use this tool when you need to ask the user questions during execution. This allows you to:
1. Gather user preferences or requirements
2. Clarify ambiguous instructions
3. Get decisions on implementation choices as you work
4. Offer choices to the user about what direction to take.

Usage notes:
- Users will always be able to select "Other" to provide custom text input
- Use multiSelect: true to allow multiple answers to be selected for a question
- If you recommend a specific option, make that the first option in the list and add "(Recommended)" at the end of the label`

func (claudeAsk) Spec() model.ToolSpec {
	return model.ToolSpec{Name: ClaudeAskUserQuestion, Description: claudeAskDesc, Parameters: schema.MustObject(claudeAskArgs{})}
}

// Run asks on grove's question card and answers as Claude Code does:
// `User has answered your questions: "Q"="A", …`.
func (claudeAsk) Run(ctx context.Context, env *Env, raw json.RawMessage) Result {
	var a claudeAskArgs
	if err := decode(ClaudeAskUserQuestion, raw, &a); err != nil {
		return Errorf("%v", err)
	}
	if len(a.Questions) > 4 {
		return Errorf("AskUserQuestion: ask at most 4 questions at a time (got %d)", len(a.Questions))
	}
	qs := make([]protocol.UserInputQuestion, len(a.Questions))
	for i, q := range a.Questions {
		opts := make([]protocol.UserInputOption, len(q.Options))
		for j, o := range q.Options {
			opts[j] = protocol.UserInputOption{Label: o.Label, Description: o.Description}
		}
		header := q.Header
		if q.MultiSelect {
			header += " (several answers: separate them with commas)"
		}
		qs[i] = protocol.UserInputQuestion{ID: fmt.Sprintf("q%d", i+1), Header: header, Question: q.Question, IsOther: true, Options: opts}
	}
	if env == nil || env.AskUser == nil {
		return Errorf("AskUserQuestion is unavailable: no one can answer questions in this session. Decide with your best judgement and state the assumption you made, or end your turn and ask in your final message.")
	}
	resp, err := env.AskUser(ctx, qs)
	switch {
	case errors.Is(err, ErrNoOneToAsk):
		return Errorf("AskUserQuestion is unavailable: no one can answer questions in this session. Decide with your best judgement and state the assumption you made, or end your turn and ask in your final message.")
	case err != nil && ctx.Err() != nil:
		return Result{Output: "AskUserQuestion: interrupted before the user answered", IsError: true}
	case err != nil:
		return Errorf("AskUserQuestion: %v", err)
	case resp == nil:
		return Errorf("The user dismissed the questions without answering.")
	}
	var parts []string
	for i, q := range a.Questions {
		ans := resp.Answers[fmt.Sprintf("q%d", i+1)]
		parts = append(parts, fmt.Sprintf("%q=%q", q.Question, strings.Join(ans.Answers, ", ")))
	}
	return Result{
		Output:  "User has answered your questions: " + strings.Join(parts, ", ") + ". You can now continue with the user's answers in mind.",
		Summary: fmt.Sprintf("asked the user %d question(s)", len(a.Questions)),
	}
}
