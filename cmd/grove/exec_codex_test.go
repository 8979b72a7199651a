package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/model/modeltest"
)

// codexScriptServer answers every request with what it was asked: the
// system prompt's sandbox/approval lines, the last user message and the
// number of messages, so a test reads back what exec sent.
func codexScriptServer(t *testing.T) *modeltest.Server {
	s := modeltest.NewServer(t)
	s.Handle(func(r modeltest.CapturedRequest) modeltest.Reply {
		msgs := r.Messages()
		last, _ := msgs[len(msgs)-1].(map[string]any)
		return modeltest.Reply{Text: fmt.Sprintf("got %d messages; last: %v", len(msgs), last["content"])}
	})
	t.Setenv("OPENAI_BASE_URL", s.URL())
	t.Setenv("OPENAI_API_KEY", "sk-test-codex-flags")
	return s
}

func systemPrompt(r modeltest.CapturedRequest) string {
	msgs := r.Messages()
	first, _ := msgs[0].(map[string]any)
	s, _ := first["content"].(string)
	return s
}

// TestExecCodexFlags: codex exec's flags, as a CI script uses them.
func TestExecCodexFlags(t *testing.T) {
	s := codexScriptServer(t)
	home, work := t.TempDir(), t.TempDir()
	last := filepath.Join(t.TempDir(), "last.txt")

	// A prompt and piped stdin: stdin is appended as a <stdin> block; -o
	// gets the last message.
	out, errOut, err := runCLI(t, home, "panic: boom\n", "exec", "--skip-git-repo-check", "--color", "never", "-o", last, "--cd", work, "-m", "m", "explain this log")
	if err != nil {
		t.Fatalf("exec: %v\n%s", err, errOut)
	}
	if !strings.Contains(out, "last: explain this log\n\n<stdin>\npanic: boom\n</stdin>") {
		t.Fatalf("stdin not appended: %q", out)
	}
	if b, _ := os.ReadFile(last); strings.TrimSpace(string(b)) != strings.TrimSpace(out) {
		t.Fatalf("-o wrote %q, stdout %q", b, out)
	}

	// exec resume --last PROMPT continues that session.
	out, errOut, err = runCLI(t, home, "", "exec", "resume", "--last", "--cd", work, "-m", "m", "and now?")
	if err != nil {
		t.Fatalf("resume --last: %v\n%s", err, errOut)
	}
	// system + user + assistant + user.
	if !strings.Contains(out, "got 4 messages; last: and now?") {
		t.Fatalf("resume --last lost the history: %q", out)
	}

	// --full-auto and --dangerously-bypass-approvals-and-sandbox set the
	// sandbox and the approval policy the agents are told about.
	for flag, want := range map[string][]string{
		"--full-auto": {"sandbox: workspace-write", "approval policy: never"},
		"--dangerously-bypass-approvals-and-sandbox": {"sandbox: danger-full-access", "approval policy: never"},
	} {
		if _, errOut, err := runCLI(t, home, "", "exec", flag, "--cd", work, "-m", "m", "hi"); err != nil {
			t.Fatalf("%s: %v\n%s", flag, err, errOut)
		}
		reqs := s.Requests()
		sys := systemPrompt(reqs[len(reqs)-1])
		for _, w := range want {
			if !strings.Contains(sys, w) {
				t.Errorf("%s: instructions lack %q", flag, w)
			}
		}
	}

	// -i attaches the image to the prompt.
	img := filepath.Join(t.TempDir(), "shot.png")
	if err := os.WriteFile(img, []byte("\x89PNG\r\n\x1a\nnot-really"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, err := runCLI(t, home, "", "exec", "-i", img, "--cd", work, "-m", "m", "what is this?"); err != nil {
		t.Fatalf("-i: %v\n%s", err, errOut)
	}
	reqs := s.Requests()
	body, _ := json.Marshal(reqs[len(reqs)-1].Messages())
	if !strings.Contains(string(body), "data:image/png;base64,") || !strings.Contains(string(body), "what is this?") {
		t.Fatalf("image not sent: %s", body)
	}

	for _, bad := range [][]string{{"--color", "sometimes"}, {"--add-dir", "/no/such/dir"}, {"--json=xml"}, {"-i", "/no/such.png"}} {
		if _, _, err := runCLI(t, home, "", append(append([]string{"exec"}, bad...), "hi")...); err == nil || !strings.Contains(err.Error(), bad[0]) {
			t.Errorf("%v: err %v, want one naming %s", bad, err, bad[0])
		}
	}
}

// TestExecEphemeralAndAddDir: --ephemeral leaves no session behind;
// --add-dir becomes a writable root of the session's sandbox.
func TestExecEphemeralAndAddDir(t *testing.T) {
	codexScriptServer(t)
	home, work, extra := t.TempDir(), t.TempDir(), t.TempDir()
	if _, errOut, err := runCLI(t, home, "", "exec", "--ephemeral", "--cd", work, "-m", "m", "hi"); err != nil {
		t.Fatalf("--ephemeral: %v\n%s", err, errOut)
	}
	if files, _ := filepath.Glob(filepath.Join(home, "sessions", "*", "*", "*", "*.jsonl")); len(files) != 0 {
		t.Fatalf("--ephemeral left %v", files)
	}
	if _, errOut, err := runCLI(t, home, "", "exec", "--add-dir", extra, "--cd", work, "-m", "m", "hi"); err != nil {
		t.Fatalf("--add-dir: %v\n%s", err, errOut)
	}
	files, _ := filepath.Glob(filepath.Join(home, "sessions", "*", "*", "*", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("sessions: %v", files)
	}
	b, _ := os.ReadFile(files[0])
	meta, _, _ := strings.Cut(string(b), "\n")
	if !strings.Contains(meta, `"writable_roots":[`+fmt.Sprintf("%q", extra)) {
		t.Fatalf("--add-dir %s not a writable root: %s", extra, meta)
	}
}

// TestExecUsesCodexConfigAndNotify: with no grove config, Codex's
// config.toml is used (and said so once); its notify program gets
// Codex's agent-turn-complete JSON; an env_key that is unset fails with
// exit 1 naming the variable and the file.
func TestExecUsesCodexConfigAndNotify(t *testing.T) {
	s := codexScriptServer(t)
	home, work := t.TempDir(), t.TempDir()
	codexHome := filepath.Join(home, "no-codex-home") // what runCLI points CODEX_HOME at
	if err := os.MkdirAll(codexHome, 0o755); err != nil {
		t.Fatal(err)
	}
	got := filepath.Join(t.TempDir(), "notified.json")
	script := filepath.Join(t.TempDir(), "notify.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nprintf '%s' \"$2\" > \""+got+"\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CODEX_TEST_KEY", "sk-from-codex-config")
	conf := fmt.Sprintf(`model = "codex-model"
model_provider = "corp"
notify = [%q, "extra-arg"]
[model_providers.corp]
base_url = %q
env_key = "CODEX_TEST_KEY"
wire_api = "chat"
[tui]
notifications = ["agent-turn-complete", "approval-requested"]
[features]
web_search_request = true
[history]
persistence = "none"
`, script, s.URL())
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, err := runCLI(t, home, "", "exec", "--cd", work, "ping")
	if err != nil {
		t.Fatalf("exec: %v\n%s", err, errOut)
	}
	if n := strings.Count(errOut, "using Codex's "+filepath.Join(codexHome, "config.toml")); n != 1 {
		t.Errorf("said %d times which file was used:\n%s", n, errOut)
	}
	if n := strings.Count(errOut, "grove does not use these Codex keys yet"); n != 1 || !strings.Contains(errOut, "features, history") {
		t.Errorf("ignored keys line:\n%s", errOut)
	}
	if auth := s.Requests()[0].Header.Get("Authorization"); auth != "Bearer sk-from-codex-config" || s.Requests()[0].Body["model"] != "codex-model" {
		t.Fatalf("Codex's provider not used: %q %v", auth, s.Requests()[0].Body["model"])
	}
	b, err := os.ReadFile(got)
	if err != nil {
		t.Fatalf("notify program not run: %v", err)
	}
	var n map[string]any
	if err := json.Unmarshal(b, &n); err != nil {
		t.Fatalf("notify JSON %q: %v", b, err)
	}
	if n["type"] != "agent-turn-complete" || n["cwd"] != work || n["thread-id"] == "" || n["turn-id"] == "" ||
		fmt.Sprint(n["input-messages"]) != "[ping]" || n["last-assistant-message"] != strings.TrimSpace(out) {
		t.Fatalf("notify JSON: %s", b)
	}

	t.Setenv("CODEX_TEST_KEY", "")
	_, _, err = runCLI(t, home, "", "exec", "--cd", work, "ping")
	if err == nil || !strings.Contains(err.Error(), "$CODEX_TEST_KEY") || !strings.Contains(err.Error(), filepath.Join(codexHome, "config.toml")) {
		t.Fatalf("unset env_key: %v", err)
	}
}

// TestMCPAddDoesNotShadowCodexConfig: with only Codex's config.toml,
// `grove mcp add` refuses to create grove's own (which would hide Codex's).
func TestMCPAddDoesNotShadowCodexConfig(t *testing.T) {
	home := t.TempDir()
	codexHome := filepath.Join(home, "no-codex-home")
	if err := os.MkdirAll(codexHome, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte("model = \"x\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err := runCLI(t, home, "", "mcp", "add", "docs", "--", "docs-server")
	if err == nil || !strings.Contains(err.Error(), "stop reading Codex's settings") {
		t.Fatalf("mcp add: %v", err)
	}
	if _, err := os.Stat(filepath.Join(home, "config.toml")); err == nil {
		t.Fatal("grove's config.toml was created")
	}
}
