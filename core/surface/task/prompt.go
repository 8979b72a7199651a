package task

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"

	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/templates"
)

// placeholder is ${name} in a prompt template.
var placeholder = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// substitute fills ${name} from vars; unknown names stay as written.
func substitute(tmpl string, vars map[string]string) string {
	return placeholder.ReplaceAllStringFunc(tmpl, func(m string) string {
		if v, ok := vars[m[2:len(m)-1]]; ok {
			return v
		}
		return m
	})
}

// checkInputs validates the Task call's inputs against the definition's
// inputConfig and renders them for substitution.
func checkInputs(defs map[string]templates.InputDefinition, given map[string]any) (map[string]string, error) {
	out := map[string]string{}
	var unknown []string
	for k := range given {
		if _, ok := defs[k]; !ok {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, fmt.Errorf("unknown input(s) %s; this agent takes: %s", strings.Join(unknown, ", "), inputList(defs))
	}
	names := make([]string, 0, len(defs))
	for k := range defs {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		d := defs[name]
		v, ok := given[name]
		if !ok || v == nil {
			if d.Required {
				return nil, fmt.Errorf("missing required input %s (%s: %s)", name, d.Type, d.Description)
			}
			out[name] = ""
			continue
		}
		s, err := renderInput(d.Type, v)
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", name, err)
		}
		out[name] = s
	}
	return out, nil
}

func inputList(defs map[string]templates.InputDefinition) string {
	if len(defs) == 0 {
		return "(no inputs)"
	}
	var parts []string
	for k, d := range defs {
		req := ""
		if d.Required {
			req = ", required"
		}
		parts = append(parts, fmt.Sprintf("%s (%s%s)", k, d.Type, req))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// renderInput checks v against an input type and renders it as text.
func renderInput(typ string, v any) (string, error) {
	switch typ {
	case "string":
		if s, ok := v.(string); ok {
			return s, nil
		}
	case "boolean":
		if b, ok := v.(bool); ok {
			return fmt.Sprint(b), nil
		}
	case "number":
		if f, ok := v.(float64); ok {
			return jsonText(f), nil
		}
	case "integer":
		if f, ok := v.(float64); ok && f == math.Trunc(f) {
			return jsonText(f), nil
		}
	case "string[]", "number[]":
		list, ok := v.([]any)
		if !ok {
			break
		}
		parts := make([]string, len(list))
		for i, e := range list {
			s, err := renderInput(strings.TrimSuffix(typ, "[]"), e)
			if err != nil {
				return "", fmt.Errorf("item %d: %w", i, err)
			}
			parts[i] = s
		}
		return strings.Join(parts, ", "), nil
	}
	return "", fmt.Errorf("expected %s, got %s", typ, jsonText(v))
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// firstMessage is what the agent is asked: the definition's query (its
// placeholders filled) with the Task prompt, or the prompt alone.
func firstMessage(a *Agent, prompt string, vars map[string]string) string {
	if strings.TrimSpace(a.Query) == "" {
		return prompt
	}
	q := substitute(a.Query, vars)
	if strings.Contains(a.Query, "${prompt}") {
		return q
	}
	return strings.TrimSpace(q) + "\n\n" + prompt
}

// fewShot is a definition's initialMessages as history items, their
// placeholders filled like the prompts'.
func fewShot(msgs []templates.InitialMessage, vars map[string]string) []protocol.Item {
	out := make([]protocol.Item, 0, len(msgs))
	for _, m := range msgs {
		text := substitute(m.Content, vars)
		if m.Role == "assistant" {
			out = append(out, protocol.AssistantMessage(text))
		} else {
			out = append(out, protocol.UserMessage(text))
		}
	}
	return out
}

// forkEntry marks where a forked parent context ends (seed 004 §3.11).
const forkEntry = `### FORKING CONVERSATION CONTEXT ###
### ENTERING SUB-AGENT ROUTINE ###
Entered sub-agent context

PLEASE NOTE:
- The messages above this point are from the main thread prior to sub-agent execution.
- Context messages may include tool_use blocks for tools not available in sub-agent context.
- Only complete the specific sub-agent task you have been assigned below.`

// forkHistory is the parent's history for a forkContext agent: tool calls
// that have no result yet (the Task call itself among them) are dropped,
// as are reasoning items (opaque state of the parent's own requests); the
// entry message closes it.
func forkHistory(parent []protocol.Item) []protocol.Item {
	answered := map[string]bool{}
	for _, it := range parent {
		if it.Type == protocol.ItemFunctionCallOutput {
			answered[it.CallID] = true
		}
	}
	out := make([]protocol.Item, 0, len(parent)+1)
	for _, it := range parent {
		switch {
		case it.Type == protocol.ItemFunctionCall && !answered[it.CallID]:
			continue
		case it.Type == protocol.ItemReasoning:
			continue
		}
		out = append(out, it)
	}
	return append(out, protocol.UserMessage(forkEntry))
}

// gracePrompt is the grace step's message, seed 004 §3.6's text.
func gracePrompt(reason string) string {
	warning := "You have reached the maximum number of turns."
	switch reason {
	case engine.LimitTimeout:
		warning = "You have exceeded the time limit."
	case engine.LimitNoCompletion:
		// The seed has no wording for this reason (its loop never ends
		// without complete_task); the rest of the message is its own.
		warning = "You ended your turn without calling `complete_task`."
	}
	return warning + " You have one final chance to complete the task.\nYou MUST call `complete_task` immediately with your best answer.\nDo not call any other tools."
}
