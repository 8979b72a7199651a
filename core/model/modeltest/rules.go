package modeltest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Rule checks a request the way a real provider does and returns the
// provider's rejection, or nil to accept it. Rules make a regression in
// what grove sends back fail a test instead of a user's session.
type Rule func(CapturedRequest) *Reply

// SetRules installs provider rules, checked in order before any reply.
func (s *Server) SetRules(rules ...Rule) {
	s.mu.Lock()
	s.rules = append([]Rule(nil), rules...)
	s.mu.Unlock()
}

func reject(status int, msg, typ string, param any) *Reply {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": param, "code": "invalid_request_error"}})
	return &Reply{Status: status, Body: string(b)}
}

// chatToolCallMessages returns the assistant messages carrying tool calls.
func chatToolCallMessages(body map[string]any) []map[string]any {
	msgs, _ := body["messages"].([]any)
	var out []map[string]any
	for _, m := range msgs {
		msg, _ := m.(map[string]any)
		if calls, _ := msg["tool_calls"].([]any); msg["role"] == "assistant" && len(calls) > 0 {
			out = append(out, msg)
		}
	}
	return out
}

// DeepSeekReasoningRule is DeepSeek's thinking mode: every assistant
// message that carries tool calls must bring its reasoning_content back.
func DeepSeekReasoningRule(cr CapturedRequest) *Reply {
	for _, msg := range chatToolCallMessages(cr.Body) {
		if rc, _ := msg["reasoning_content"].(string); rc == "" {
			return reject(http.StatusBadRequest, "The reasoning_content in the thinking mode must be passed back to the API.", "invalid_request_error", nil)
		}
	}
	return nil
}

// JSONArgumentsRule is DashScope's (Qwen's) check, shared by other strict
// servers: every replayed tool call's arguments must be a JSON object, on
// either wire.
func JSONArgumentsRule(cr CapturedRequest) *Reply {
	var args []string
	for _, msg := range chatToolCallMessages(cr.Body) {
		for _, c := range msg["tool_calls"].([]any) {
			fn, _ := c.(map[string]any)["function"].(map[string]any)
			a, _ := fn["arguments"].(string)
			args = append(args, a)
		}
	}
	input, _ := cr.Body["input"].([]any)
	for _, it := range input {
		if m, _ := it.(map[string]any); m["type"] == "function_call" {
			a, _ := m["arguments"].(string)
			args = append(args, a)
		}
	}
	for _, a := range args {
		var obj map[string]any
		if !strings.HasPrefix(strings.TrimSpace(a), "{") || json.Unmarshal([]byte(a), &obj) != nil {
			return reject(http.StatusBadRequest, `<400> InternalError.Algo.InvalidParameter: The "function.arguments" parameter of the code model must be in JSON format.`, "invalid_request_error", nil)
		}
	}
	return nil
}

// RejectParam answers 400 to any request whose body has the top-level
// field name, with OpenAI's wording and param.
func RejectParam(name string) Rule {
	return func(cr CapturedRequest) *Reply {
		if _, ok := cr.Body[name]; ok {
			return reject(http.StatusBadRequest, fmt.Sprintf("Unknown parameter: '%s'.", name), "invalid_request_error", name)
		}
		return nil
	}
}

// RejectParamByMessage is RejectParam for servers that only name the
// parameter in the message (vLLM, LiteLLM proxies): param is null.
func RejectParamByMessage(name string) Rule {
	return func(cr CapturedRequest) *Reply {
		if _, ok := cr.Body[name]; ok {
			return reject(http.StatusBadRequest, fmt.Sprintf("'%s' is not supported with this model.", name), "invalid_request_error", nil)
		}
		return nil
	}
}
