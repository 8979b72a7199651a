package main

// Exec conformance, continued: the cases of openai/codex
// codex-rs/exec/tests/suite about what a run reads and keeps (AGENTS.md,
// the approval line, rollouts, -o, required MCP servers), each naming its
// Codex file and test. The harness is codex_exec_conformance_test.go's.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/grovecli/grove/core/model/modeltest"
)

// Codex's core_test_support::responses event builders, as SSE payloads
// for modeltest.Reply.Recorded.
func evCreated(id string) string {
	return `{"type":"response.created","response":{"id":"` + id + `"}}`
}

func evCompleted(id string) string {
	return `{"type":"response.completed","response":{"id":"` + id + `","usage":{"input_tokens":0,"input_tokens_details":null,"output_tokens":0,"output_tokens_details":null,"total_tokens":0}}}`
}

func evAssistantMessage(id, text string) string {
	b, _ := json.Marshal(map[string]any{"type": "response.output_item.done", "item": map[string]any{
		"type": "message", "role": "assistant", "id": id, "content": []any{map[string]any{"type": "output_text", "text": text}}}})
	return string(b)
}

func evFunctionCall(callID, name, args string) string {
	b, _ := json.Marshal(map[string]any{"type": "response.output_item.done", "item": map[string]any{
		"type": "function_call", "call_id": callID, "name": name, "arguments": args}})
	return string(b)
}

func evCustomToolCall(callID, name, input string) string {
	b, _ := json.Marshal(map[string]any{"type": "response.output_item.done", "item": map[string]any{
		"type": "custom_tool_call", "call_id": callID, "name": name, "input": input}})
	return string(b)
}

// sseOnce answers every request with one assistant message, as Codex's
// mount_sse_once(ev_response_created, ev_assistant_message, ev_completed).
func (x *codexExec) sseOnce(text string) {
	x.srv.Handle(func(modeltest.CapturedRequest) modeltest.Reply {
		return modeltest.Reply{Recorded: []string{evCreated("resp1"), evAssistantMessage("m1", text), evCompleted("resp1")}}
	})
}

// sseSequence answers the n-th request with the n-th stream, as Codex's
// mount_sse_sequence; a request past the end fails the test.
func (x *codexExec) sseSequence(streams ...[]string) {
	var calls atomic.Int32 // handlers run on the server's goroutines
	x.srv.Handle(func(modeltest.CapturedRequest) modeltest.Reply {
		n := int(calls.Add(1))
		if n > len(streams) {
			x.t.Errorf("request %d: only %d streams", n, len(streams))
			return modeltest.Reply{Status: 500}
		}
		return modeltest.Reply{Recorded: streams[n-1]}
	})
}

// userTexts are the texts of the user-role message items a Responses
// request carried (Codex's message_input_texts("user")).
func userTexts(r modeltest.CapturedRequest) []string {
	var out []string
	input, _ := r.Body["input"].([]any)
	for _, raw := range input {
		it, _ := raw.(map[string]any)
		if it["type"] != "message" || it["role"] != "user" {
			continue
		}
		parts, _ := it["content"].([]any)
		for _, p := range parts {
			if s, ok := p.(map[string]any)["text"].(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

func anyContains(texts []string, sub string) bool {
	for _, s := range texts {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

func (x *codexExec) write(rel, content string) string {
	x.t.Helper()
	p := rel
	if !filepath.IsAbs(p) {
		p = filepath.Join(x.cwd, rel)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		x.t.Fatal(err)
	}
	return p
}

// agents_md.rs exec_includes_workspace_agents_md_in_request.
func TestCodexExecIncludesWorkspaceAgentsMdInRequest(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	x.write("AGENTS.md", "workspace instructions")
	x.sseOnce("fixture hello")
	x.mustRun("--skip-git-repo-check", "tell me something")
	r := x.srv.Requests()[0]
	if texts := userTexts(r); !anyContains(texts, "workspace instructions") {
		t.Fatalf("request should include workspace AGENTS.md instructions: %q", texts)
	}
	// Issue 34: a user-role block, not part of the instructions.
	if instr, _ := r.Body["instructions"].(string); strings.Contains(instr, "workspace instructions") {
		t.Fatal("the project doc went into instructions")
	}
}

// agents_md.rs exec_prefers_workspace_agents_override_md.
func TestCodexExecPrefersWorkspaceAgentsOverrideMd(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	x.write("AGENTS.md", "base instructions")
	x.write("AGENTS.override.md", "override instructions")
	x.sseOnce("fixture hello")
	x.mustRun("--skip-git-repo-check", "tell me something")
	texts := userTexts(x.srv.Requests()[0])
	if !anyContains(texts, "override instructions") || anyContains(texts, "base instructions") {
		t.Fatalf("want AGENTS.override.md and not the shadowed AGENTS.md: %q", texts)
	}
}

// agents_md.rs exec_surfaces_project_instruction_loading_warnings.
func TestCodexExecSurfacesProjectInstructionLoadingWarnings(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	path := x.write("AGENTS.md", "project\xffinstructions")
	x.sseOnce("fixture hello")
	_, errOut := x.mustRun("--skip-git-repo-check", "tell me something")
	if !strings.Contains(errOut, "invalid UTF-8") || !strings.Contains(errOut, path) {
		t.Fatalf("stderr: %s", errOut)
	}
}

// agents_md.rs exec_json_surfaces_project_instruction_loading_warnings:
// the warning is an item.completed of type error in the JSONL.
func TestCodexExecJSONSurfacesProjectInstructionLoadingWarnings(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	path := x.write("AGENTS.md", "project\xffinstructions")
	x.sseOnce("fixture hello")
	out, _ := x.mustRun("--skip-git-repo-check", "--json", "tell me something")
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var ev struct {
			Type string `json:"type"`
			Item struct {
				Type    string `json:"type"`
				Message string `json:"message"`
			} `json:"item"`
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("stdout line %q is not JSON: %v", line, err)
		}
		if ev.Type == "item.completed" && ev.Item.Type == "error" && strings.Contains(ev.Item.Message, "invalid UTF-8") && strings.Contains(ev.Item.Message, path) {
			return
		}
	}
	t.Fatalf("expected a JSONL warning event; observed:\n%s", out)
}

// agents_md.rs exec_surfaces_global_instruction_loading_warnings:
// $CODEX_HOME/AGENTS.md, with no config.toml beside it.
func TestCodexExecSurfacesGlobalInstructionLoadingWarnings(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	x.write(filepath.Join(x.home, "AGENTS.md"), "global\xffinstructions")
	x.sseOnce("fixture hello")
	_, errOut := x.mustRun("--skip-git-repo-check", "tell me something")
	if suffix := filepath.Base(x.home) + "/AGENTS.md"; !strings.Contains(errOut, "invalid UTF-8") || !strings.Contains(errOut, suffix) {
		t.Fatalf("stderr lacks the warning naming %s: %s", suffix, errOut)
	}
}

// Issue 34: $CODEX_HOME/AGENTS.md is read without a config.toml beside
// it (codex-rs/core's global instructions; agents_md.rs's global case
// reads it to warn).
func TestCodexExecReadsCodexHomeAgentsMdWithoutConfig(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	x.env["GROVE_HOME"] = t.TempDir() // grove's home apart: only $CODEX_HOME holds the file
	x.write(filepath.Join(x.home, "AGENTS.md"), "global codex instructions")
	x.sseOnce("fixture hello")
	x.mustRun("--skip-git-repo-check", "tell me something")
	r := x.srv.Requests()[0]
	instr, _ := r.Body["instructions"].(string)
	if !anyContains(append(userTexts(r), instr), "global codex instructions") {
		t.Fatalf("$CODEX_HOME/AGENTS.md not sent: %q", userTexts(r))
	}
}

// auto-review config of approval_policy.rs.
func (x *codexExec) autoReviewConfig() {
	x.write(filepath.Join(x.home, "config.toml"), "approval_policy = \"on-request\"\napprovals_reviewer = \"auto_review\"\n")
	x.sseOnce("done")
}

// approval_policy.rs exec_bypass_preserves_never_for_auto_review_config.
func TestCodexExecBypassPreservesNeverForAutoReviewConfig(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	x.autoReviewConfig()
	if _, errOut := x.mustRun("--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "check approval mode"); !strings.Contains(errOut, "approval: never") {
		t.Fatalf("stderr missing bypass approval mode: %s", errOut)
	}
}

// approval_policy.rs exec_full_auto_preserves_never_for_auto_review_config.
func TestCodexExecFullAutoPreservesNeverForAutoReviewConfig(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	x.autoReviewConfig()
	if _, errOut := x.mustRun("--skip-git-repo-check", "--full-auto", "check approval mode"); !strings.Contains(errOut, "approval: never") {
		t.Fatalf("stderr missing full-auto approval mode: %s", errOut)
	}
}

func (x *codexExec) rolloutCount() int {
	n := 0
	_ = filepath.WalkDir(filepath.Join(x.home, "sessions"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			n++
		}
		return nil
	})
	return n
}

// ephemeral.rs persists_rollout_file_by_default.
func TestCodexExecPersistsRolloutFileByDefault(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	x.sseOnce("ephemeral response")
	x.mustRun("--skip-git-repo-check", "default persistence behavior")
	if n := x.rolloutCount(); n != 1 {
		t.Fatalf("%d rollouts, want 1", n)
	}
}

// ephemeral.rs does_not_persist_rollout_file_in_ephemeral_mode.
func TestCodexExecDoesNotPersistRolloutFileInEphemeralMode(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	x.sseOnce("ephemeral response")
	x.mustRun("--skip-git-repo-check", "--ephemeral", "ephemeral behavior")
	if n := x.rolloutCount(); n != 0 {
		t.Fatalf("%d rollouts, want 0", n)
	}
}

// output_last_message.rs output_last_message_does_not_follow_symlink:
// the run succeeds, says it could not write, and the link's target is
// untouched.
func TestCodexExecOutputLastMessageDoesNotFollowSymlink(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	target := x.write("target.md", "original")
	output := filepath.Join(x.cwd, "output.md")
	if err := os.Symlink(target, output); err != nil {
		t.Fatal(err)
	}
	x.sseOnce("replacement")
	_, errOut := x.mustRun("--skip-git-repo-check", "--output-last-message", output, "write a response")
	if !strings.Contains(errOut, "Failed to write last message file") {
		t.Fatalf("stderr: %s", errOut)
	}
	if b, _ := os.ReadFile(target); string(b) != "original" {
		t.Fatalf("target now %q", b)
	}
}

// mcp_required_exit.rs exits_non_zero_when_required_mcp_server_fails_to_initialize.
func TestCodexExecExitsNonZeroWhenRequiredMCPServerFailsToInitialize(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	x.write(filepath.Join(x.home, "config.toml"), "[mcp_servers.required_broken]\ncommand = \"codex-definitely-not-a-real-binary\"\nrequired = true\n")
	x.sseOnce("hello")
	_, errOut, code := x.run("", "--skip-git-repo-check", "--experimental-json", "tell me something")
	if code != 1 || !strings.Contains(errOut, "required MCP servers failed to initialize: required_broken") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}

// ephemeral.rs materializes_rollout_file_for_ephemeral_mode_when_debug_env_is_enabled.
func TestCodexExecMaterializesRolloutForEphemeralWhenDebugEnvIsEnabled(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	x.env["CODEX_MATERIALIZE_EPHEMERAL_ROLLOUTS"] = "1"
	x.sseOnce("ephemeral response")
	x.mustRun("--skip-git-repo-check", "--ephemeral", "ephemeral debug behavior")
	if n := x.rolloutCount(); n != 1 {
		t.Fatalf("%d rollouts, want 1", n)
	}
}
