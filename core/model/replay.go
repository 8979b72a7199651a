package model

import (
	"encoding/json"
	"strings"

	"github.com/grovecli/grove/protocol"
)

// argumentReplay makes a history safe to send back: providers that check
// tool-call arguments (DashScope/Qwen, strict OpenAI-compatible servers)
// answer 400 to anything that is not a JSON object, and because the bad
// call stays in the history every later request would fail too. The
// history keeps what the model said; only the request is normalised.
type argumentReplay struct {
	broken map[string]bool // call ids whose arguments were replaced
}

func newArgumentReplay(items []protocol.Item) argumentReplay {
	r := argumentReplay{}
	for _, it := range items {
		if it.Type == protocol.ItemFunctionCall && !it.Custom && !isArgumentObject(it.Arguments) && strings.TrimSpace(it.Arguments) != "" {
			if r.broken == nil {
				r.broken = map[string]bool{}
			}
			r.broken[it.CallID] = true
		}
	}
	return r
}

// isArgumentObject reports whether s is one JSON object.
func isArgumentObject(s string) bool {
	s = strings.TrimSpace(s)
	return strings.HasPrefix(s, "{") && json.Valid([]byte(s))
}

// arguments is what a call's arguments are sent back as: "" (a call
// without parameters) becomes {}, and so does anything unparseable.
func (r argumentReplay) arguments(it protocol.Item) string {
	if isArgumentObject(it.Arguments) {
		return it.Arguments
	}
	return "{}"
}

// brokenArgumentsNote tells the model why its call shows {} as arguments.
const brokenArgumentsNote = "[grove: the arguments of this call were not a valid JSON object, so they are shown as {}; the tool did not receive them. Call it again with a JSON object.]\n"

// output is a call's output as sent back, with a note when its call's
// arguments were replaced.
func (r argumentReplay) output(it protocol.Item) string {
	if r.broken[it.CallID] {
		return brokenArgumentsNote + it.Output
	}
	return it.Output
}

// callArguments is arguments for a wire without custom tools: a custom
// call's text goes back in its function form, {"input": text}.
func (r argumentReplay) callArguments(it protocol.Item) string {
	if it.Custom {
		return it.CallArguments()
	}
	return r.arguments(it)
}
