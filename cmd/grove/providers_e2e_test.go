package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/grovecli/grove/core/model/modeltest"
)

// `grove exec --json` against each recorded provider stream that asks for
// a tool: the call is executed (the fixtures' tools are not grove's, so
// the tool answers with an error the model can read), the follow-up
// request passes the provider's rules, and the final answer reaches
// stdout.
func TestExecCompletesToolLoopOnRecordedStreams(t *testing.T) {
	for _, fc := range []struct {
		file, wire, callID string
		thinking           bool // DeepSeek's thinking-mode rule applies
	}{
		{"chat-openai-gpt4o-parallel-tool-calls.sse", "chat", "call_DNYTawLBoN8fj3KN6qU9N1Ou", false},
		{"chat-deepseek-v4-reasoning-tool-call.jsonl", "chat", "call_00_ioIn7yN9p1ZOMNpDLwd4MgAF", true},
		{"chat-xai-grok-reasoning-tool-call.jsonl", "chat", "call_55117580", true},
		{"chat-mistral-tool-call-no-index.jsonl", "chat", "gSIMJiOkT", false},
		{"chat-dashscope-qwen3-tool-call.jsonl", "chat", "call_eee11723464a4b9eb8cee71d", false},
		{"chat-groq-llama-tool-call.jsonl", "chat", "tk85n1k4m", false},
		{"responses-openai-gpt5-codex-encrypted-reasoning-tool-call.jsonl", "responses", "call_AB6AaRZ1FYZB2RwS6A5vbdqn", false},
		{"responses-lmstudio-reasoning-tool-call.jsonl", "responses", "call_2025306790300011", false},
		{"responses-openai-custom-tool-call.jsonl", "responses", "call_custom_sql_001", false},
	} {
		t.Run(strings.TrimSuffix(strings.TrimSuffix(fc.file, ".jsonl"), ".sse"), func(t *testing.T) {
			noProviderEnv(t)
			recorded, err := modeltest.LoadFixture(filepath.Join("..", "..", "core", "model", "testdata", "fixtures", fc.file))
			if err != nil {
				t.Fatal(err)
			}
			s := modeltest.NewServer(t)
			rules := []modeltest.Rule{modeltest.JSONArgumentsRule}
			if fc.thinking {
				rules = append(rules, modeltest.DeepSeekReasoningRule)
			}
			s.SetRules(rules...)
			s.Enqueue(modeltest.Reply{Recorded: recorded})
			s.Handle(func(modeltest.CapturedRequest) modeltest.Reply {
				return modeltest.Reply{Text: "final answer after the tool"}
			})
			home := t.TempDir()
			cfg := fmt.Sprintf("model_provider = \"recorded\"\n[model_providers.recorded]\nbase_url = %q\nwire_api = %q\nrequest_max_retries = 0\n", s.URL(), fc.wire)
			if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
				t.Fatal(err)
			}
			out, errOut, err := runCLI(t, home, "", "exec", "--json=grove", "--cd", t.TempDir(), "-m", "recorded-model", "what is the weather in San Francisco?")
			if err != nil {
				t.Fatalf("exec: %v\n%s\n%s", err, out, errOut)
			}
			if !strings.Contains(out, `"final answer after the tool"`) {
				t.Fatalf("no final answer on stdout:\n%s", out)
			}
			ended := false
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				var ev map[string]any
				if err := json.Unmarshal([]byte(line), &ev); err != nil {
					t.Fatalf("not JSON: %q", line)
				}
				ended = ended || (ev["type"] == "tool_call_end" && strings.Contains(line, fc.callID))
			}
			if !ended {
				t.Fatalf("no tool_call_end for %s:\n%s", fc.callID, out)
			}
			reqs := s.Requests()
			if len(reqs) != 2 || !strings.Contains(string(reqs[1].Raw), fc.callID) {
				t.Fatalf("%d requests; follow-up %s", len(reqs), reqs[len(reqs)-1].Raw)
			}
			// Encrypted reasoning survives the engine's history.
			if enc := strings.Contains(strings.Join(recorded, ""), `"encrypted_content":"gAAAA`); enc != strings.Contains(string(reqs[1].Raw), `"encrypted_content":"gAAAA`) {
				t.Fatalf("encrypted reasoning in the recording: %v; in the follow-up: %s", enc, reqs[1].Raw)
			}
		})
	}
}

// The timeouts of the provider table reach the client: a stalled stream
// and a server that never answers are cut after the configured time and
// retried, each as a stream_retry event.
func TestExecProviderTimeoutsFromConfig(t *testing.T) {
	for _, tc := range []struct {
		name, key string
		stall     modeltest.Reply
		notice    string
	}{
		{"stalled stream", "stream_idle_timeout_ms", modeltest.Reply{Text: "never finished", ChunkDelay: time.Hour}, "idle for 200ms"},
		{"no headers", "response_header_timeout_ms", modeltest.Reply{Hang: true}, "no response within 200ms"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			noProviderEnv(t)
			s := modeltest.NewServer(t)
			s.Enqueue(tc.stall, modeltest.Reply{Text: "answer after the retry"})
			home := t.TempDir()
			cfg := fmt.Sprintf("model_provider = \"slow\"\n[model_providers.slow]\nbase_url = %q\n%s = 200\n", s.URL(), tc.key)
			if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
				t.Fatal(err)
			}
			out, errOut, err := runCLI(t, home, "", "exec", "--json=grove", "--cd", t.TempDir(), "-m", "m", "hi")
			if err != nil {
				t.Fatalf("exec: %v\n%s", err, errOut)
			}
			if !strings.Contains(out, `"type":"stream_retry"`) || !strings.Contains(out, tc.notice) || !strings.Contains(out, "answer after the retry") {
				t.Fatalf("want a stream_retry with %q and the answer:\n%s", tc.notice, out)
			}
		})
	}
}

// A reply cut by the token limit still reaches stdout, with a warning
// event saying so.
func TestExecWarnsAboutIncompleteReply(t *testing.T) {
	noProviderEnv(t)
	s := modeltest.NewServer(t)
	s.Enqueue(modeltest.Reply{Recorded: []string{`{"choices":[{"index":0,"delta":{"content":"half an answer"},"finish_reason":"length"}]}`}})
	t.Setenv("OPENAI_BASE_URL", s.URL())
	t.Setenv("OPENAI_API_KEY", "sk-test")
	// A recorded Chat Completions stream: the openai provider is set to
	// the chat wire (OPENAI_BASE_URL alone keeps Responses, as in Codex).
	out, errOut, err := runCLI(t, t.TempDir(), "", "exec", "-c", `model_providers.openai.wire_api="chat"`, "--json=grove", "--cd", t.TempDir(), "-m", "m", "hi")
	if err != nil {
		t.Fatalf("exec: %v\n%s", err, errOut)
	}
	if !strings.Contains(out, `"type":"warning"`) || !strings.Contains(out, "output token limit") || !strings.Contains(out, "half an answer") {
		t.Fatalf("no warning or answer:\n%s", out)
	}
}
