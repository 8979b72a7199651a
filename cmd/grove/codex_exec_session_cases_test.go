package main

// Exec conformance, continued: session and process cases of openai/codex
// codex-rs/exec/tests/suite (resume_verification.rs, fork.rs,
// sigint_exit_code.rs) and the codex-rs/core/tests/suite/cli_stream.rs
// cases that drive `codex exec`, each naming its Codex file and test.

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/google/uuid"

	"github.com/grovecli/grove/core/model/modeltest"
	"github.com/grovecli/grove/core/testkit"
)

// resume_verification.rs exec_resume_last_json_mode_exact_issue_scenario
// (Codex issue #6717: `codex exec --json resume --last "2+2"`).
func TestCodexExecResumeLastJSONModeExactIssueScenario(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	m1, m2 := marker("resume-json-issue"), marker("resume-json-issue-2")
	x.mustRun("--skip-git-repo-check", "-C", x.cwd, "echo "+m1)
	out, _ := x.mustRun("--skip-git-repo-check", "-C", x.cwd, "--json", "resume", "--last", "echo "+m2)
	x.sameFile(m1, m2, "resume --last should append to existing file")
	if !strings.HasPrefix(out, `{"type":"thread.started"`) {
		t.Fatalf("--json stdout: %q", out)
	}
}

// resume_verification.rs exec_resume_uuid_with_last_should_error: a
// UUID, with or without dashes, before --last.
func TestCodexExecResumeUUIDWithLastShouldError(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	id := uuid.NewString()
	for _, arg := range []string{id, strings.ReplaceAll(id, "-", "")} {
		_, errOut, code := x.run("", "--skip-git-repo-check", "-C", x.cwd, "resume", arg, "--last")
		if code == 0 || !(strings.Contains(errOut, "cannot be used with") || strings.Contains(errOut, "conflicts")) {
			t.Fatalf("resume %s --last: exit %d, stderr %q", arg, code, errOut)
		}
	}
}

// resume_verification.rs exec_resume_rejects_positional_before_last.
func TestCodexExecResumeRejectsPositionalBeforeLast(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	for _, arg := range []string{"2+2", "hello world", "12345678-1234-1234-1234-123456789012", "12345678-1234-1234-1234-1234567890"} {
		_, errOut, code := x.run("", "--skip-git-repo-check", "-C", x.cwd, "resume", arg, "--last")
		if code == 0 || !(strings.Contains(errOut, "cannot be used with") || strings.Contains(errOut, "conflicts")) {
			t.Fatalf("resume %q --last: exit %d, stderr %q", arg, code, errOut)
		}
	}
	if len(x.srv.Requests()) != 0 {
		t.Fatal("a refused resume reached the model")
	}
}

// resume_verification.rs exec_resume_last_with_and_without_value: the
// prompt given at the parent level, `resume --last` after it.
func TestCodexExecResumeLastWithAndWithoutValue(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	m1, m2 := marker("resume-last-value"), marker("resume-last-value-2")
	x.mustRun("--skip-git-repo-check", "-C", x.cwd, "echo "+m1)
	x.mustRun("--skip-git-repo-check", "-C", x.cwd, "echo "+m2, "resume", "--last")
	x.sameFile(m1, m2, "resume --last should append to existing file")
}

// fork.rs exec_fork_by_id_creates_new_session_with_copied_history:
// `exec --fork ID PROMPT` writes a new rollout holding both prompts; the
// original does not get the second.
func TestCodexExecForkByIDCreatesNewSessionWithCopiedHistory(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	m1, m2 := marker("fork-base"), marker("fork-follow-up")
	x.mustRun("--skip-git-repo-check", "-C", x.cwd, "echo "+m1)
	original := x.rolloutWith(m1)
	id := x.sessionOf(m1)
	x.mustRun("--skip-git-repo-check", "-C", x.cwd, "--fork", id, "echo "+m2)
	forked := x.rolloutWith(m2)
	if forked == "" || forked == original {
		t.Fatalf("fork should create a new session file: %q (original %q)", forked, original)
	}
	b, _ := os.ReadFile(forked)
	if !strings.Contains(string(b), m1) {
		t.Fatal("the forked session lacks the original history")
	}
	if b, _ := os.ReadFile(original); strings.Contains(string(b), m2) {
		t.Fatal("original session should not receive the forked prompt")
	}
	// The model saw the copied history.
	reqs := x.srv.Requests()
	if body, _ := json.Marshal(reqs[len(reqs)-1].Body["input"]); !strings.Contains(string(body), m1) {
		t.Fatal("the forked turn was sent without the original history")
	}
}

// sigintRun starts grove exec with the server stuck after the requests
// replies serves, waits for want requests, sends SIGINT and returns the
// exit status.
func (x *codexExec) sigintRun(want int, replies ...modeltest.Reply) int {
	x.t.Helper()
	var calls atomic.Int32 // handlers run on the server's goroutines
	x.srv.Handle(func(modeltest.CapturedRequest) modeltest.Reply {
		if n := int(calls.Add(1)); n <= len(replies) {
			return replies[n-1]
		}
		return modeltest.Reply{Hang: true}
	})
	cmd := x.command("--skip-git-repo-check", "test prompt")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		x.t.Fatal(err)
	}
	x.t.Cleanup(func() { _ = cmd.Process.Kill() })
	testkit.Eventually(x.t, "the model request", func() bool { return len(x.srv.Requests()) >= want })
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		x.t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if err == nil {
		return 0
	}
	if errorsAs(err, &ee) {
		return ee.ExitCode()
	}
	x.t.Fatalf("wait: %v\n%s", err, errb.String())
	return -1
}

func errorsAs(err error, ee **exec.ExitError) bool {
	e, ok := err.(*exec.ExitError)
	*ee = e
	return ok
}

// sigint_exit_code.rs exits_130_on_sigint: a turn still streaming when
// SIGINT comes exits 130.
func TestCodexExecExits130OnSigint(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	if code := x.sigintRun(1); code != 130 {
		t.Fatalf("exit %d, want 130 on SIGINT", code)
	}
}

// sigint_exit_code.rs sigint_takes_precedence_over_error: the stream
// failed (and is being retried) when SIGINT comes: still 130.
func TestCodexExecSigintTakesPrecedenceOverError(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	failed := modeltest.Reply{Recorded: []string{
		`{"type":"response.created","response":{"id":"resp_test","status":"in_progress"}}`,
		`{"type":"response.failed","response":{"id":"resp_test","error":{"code":"internal_error","message":"synthetic error"}}}`,
	}}
	x.env["GROVE_TEST_NO_RETRY_DELAY"] = "1"
	if code := x.sigintRun(2, failed); code != 130 {
		t.Fatalf("exit %d, want 130 (SIGINT before the error)", code)
	}
}

// mockProvider is cli_stream.rs's `-c model_providers.mock={…}` override.
func (x *codexExec) mockProvider(wire string) []string {
	return []string{"-c", `model_providers.mock={ name = "mock", base_url = "` + x.srv.URL() + `", env_key = "PATH", wire_api = "` + wire + `" }`, "-c", `model_provider="mock"`}
}

func hiLines(stdout string) int {
	n := 0
	for _, l := range strings.Split(stdout, "\n") {
		if strings.TrimSpace(l) == "hi" {
			n++
		}
	}
	return n
}

// cli_stream.rs responses_mode_stream_cli: a custom Responses provider;
// "hi" printed exactly once; the request on /v1/responses.
func TestCodexExecResponsesModeStreamCLI(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	x.env["OPENAI_BASE_URL"] = ""
	x.sseOnce("hi")
	out, _ := x.mustRun(append(append([]string{"--skip-git-repo-check"}, x.mockProvider("responses")...), "-C", x.cwd, "hello?")...)
	if n := hiLines(out); n != 1 {
		t.Fatalf("expected exactly one line with 'hi', got %d:\n%s", n, out)
	}
	if r := x.srv.Requests(); len(r) != 1 || r[0].Path != "/v1/responses" {
		t.Fatalf("requests %v", r)
	}
}

// cli_stream.rs chat_mode_stream_cli: a custom Chat Completions
// provider; "hi" printed exactly once; the session is listed with its
// provider.
func TestCodexExecChatModeStreamCLI(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	x.srv.Handle(func(modeltest.CapturedRequest) modeltest.Reply { return modeltest.Reply{Text: "hi"} })
	out, _ := x.mustRun(append(append([]string{"--skip-git-repo-check"}, x.mockProvider("chat")...), "-C", x.cwd, "hello?")...)
	if n := hiLines(out); n != 1 {
		t.Fatalf("expected exactly one line with 'hi', got %d:\n%s", n, out)
	}
	if r := x.srv.Requests(); len(r) != 1 || r[0].Path != "/v1/chat/completions" {
		t.Fatalf("requests %v", r)
	}
	meta := x.sessionMeta(x.rolloutWith("hello?"))
	if meta["id"] == nil || meta["timestamp"] == nil || meta["provider"] != "mock" {
		t.Fatalf("session_meta %v", meta)
	}
}

// sessionMeta is the payload of a rollout's first line (session_meta).
func (x *codexExec) sessionMeta(path string) map[string]any {
	x.t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		x.t.Fatalf("rollout: %v", err)
	}
	first, _, _ := strings.Cut(string(b), "\n")
	var line struct {
		Type    string         `json:"type"`
		Payload map[string]any `json:"payload"`
	}
	if err := json.Unmarshal([]byte(first), &line); err != nil || line.Type != "session_meta" {
		x.t.Fatalf("first line %q: %v", first, err)
	}
	return line.Payload
}

// cli_stream.rs responses_mode_stream_cli_supports_openai_base_url_config_override
// and responses_api_stream_cli: the built-in provider with -c
// openai_base_url prints the answer and posts to /v1/responses.
func TestCodexExecResponsesAPIStreamCLI(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	x.env["OPENAI_BASE_URL"] = ""
	x.sseOnce("fixture hello")
	out, _ := x.mustRun("--skip-git-repo-check", "-c", `openai_base_url="`+x.srv.URL()+`"`, "-C", x.cwd, "hello?")
	if !strings.Contains(out, "fixture hello") {
		t.Fatalf("stdout %q", out)
	}
	if r := x.srv.Requests(); len(r) != 1 || r[0].Path != "/v1/responses" {
		t.Fatalf("requests %v", r)
	}
}

// cli_stream.rs exec_cli_applies_model_instructions_file (and
// exec_cli_applies_experimental_instructions_file, its older key): the
// file's text is the request's instructions.
func TestCodexExecCLIAppliesModelInstructionsFile(t *testing.T) {
	t.Parallel()
	for _, key := range []string{"model_instructions_file", "experimental_instructions_file"} {
		x := newCodexExec(t)
		x.sseOnce("ok")
		marker := "cli-" + key + "-marker"
		path := filepath.Join(t.TempDir(), "instr.md")
		if err := os.WriteFile(path, []byte(marker), 0o644); err != nil {
			t.Fatal(err)
		}
		x.mustRun(append(append([]string{"--skip-git-repo-check"}, x.mockProvider("responses")...), "-c", key+`="`+path+`"`, "-C", x.cwd, "hello?\n")...)
		if instr, _ := x.srv.Requests()[0].Body["instructions"].(string); !strings.Contains(instr, marker) {
			t.Fatalf("%s: instructions did not contain the marker; got: %s", key, instr)
		}
	}
}

// cli_stream.rs exec_cli_profile_applies_model_instructions_file: the
// --profile's model_instructions_file reaches the request.
func TestCodexExecCLIProfileAppliesModelInstructionsFile(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	x.sseOnce("ok")
	marker := "cli-profile-model-instructions-file-marker"
	path := filepath.Join(t.TempDir(), "instr.md")
	if err := os.WriteFile(path, []byte(marker), 0o644); err != nil {
		t.Fatal(err)
	}
	x.write(filepath.Join(x.home, "config.toml"), "[profiles.default]\nmodel_instructions_file = \""+path+"\"\n")
	x.mustRun(append(append([]string{"--skip-git-repo-check", "--profile", "default"}, x.mockProvider("responses")...), "-C", x.cwd, "hello?\n")...)
	if instr, _ := x.srv.Requests()[0].Body["instructions"].(string); !strings.Contains(instr, marker) {
		t.Fatalf("instructions did not contain the profile marker; got: %s", instr)
	}
}

// cli_stream.rs integration_creates_and_checks_session_file: the rollout
// is sessions/YYYY/MM/DD/<file>.jsonl, starts with session_meta (id,
// timestamp), holds the prompt as a response_item message, and `PROMPT
// resume --last` appends to it.
func TestCodexExecIntegrationCreatesAndChecksSessionFile(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	m1, m2 := marker("integration-test"), marker("integration-resume")
	x.mustRun("--skip-git-repo-check", "-C", x.cwd, "echo "+m1)
	path := x.rolloutWith(m1)
	rel, err := filepath.Rel(filepath.Join(x.home, "sessions"), path)
	if err != nil || !regexp.MustCompile(`^\d{4}/(0[1-9]|1[0-2])/(0[1-9]|[12]\d|3[01])/[^/]+\.jsonl$`).MatchString(rel) {
		t.Fatalf("expected sessions/YYYY/MM/DD/<file>, got %s", rel)
	}
	if meta := x.sessionMeta(path); meta["id"] == nil || meta["timestamp"] == nil {
		t.Fatalf("SessionMeta missing id or timestamp: %v", meta)
	}
	if !rolloutHasMessage(t, path, m1) {
		t.Fatal("no message found in session file containing the marker")
	}
	x.mustRun("--skip-git-repo-check", "-C", x.cwd, "echo "+m2, "resume", "--last")
	if len(x.srv.Requests()) != 2 {
		t.Fatalf("%d requests, want 2", len(x.srv.Requests()))
	}
	x.sameFile(m1, m2, "resume should write to the existing log file")
}

// rolloutHasMessage: a response_item line whose payload is a message
// holding marker (Codex's find_session_file_containing_marker).
func rolloutHasMessage(t *testing.T, path, marker string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n")[1:] {
		var item struct {
			Type    string          `json:"type"`
			Payload json.RawMessage `json:"payload"`
		}
		if json.Unmarshal([]byte(line), &item) != nil || item.Type != "response_item" {
			continue
		}
		var p struct {
			Type    string          `json:"type"`
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(item.Payload, &p) == nil && p.Type == "message" && strings.Contains(string(p.Content), marker) {
			return true
		}
	}
	return false
}

// cli_stream.rs integration_git_info_unit_test: a run in a git checkout
// records the commit, the branch and the origin URL in session_meta.git.
func TestCodexExecIntegrationGitInfo(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	x := newCodexExec(t)
	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = x.cwd
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=Integration Test",
			"GIT_AUTHOR_EMAIL=test@example.com", "GIT_COMMITTER_NAME=Integration Test", "GIT_COMMITTER_EMAIL=test@example.com")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	x.write("test.txt", "integration test content")
	git("add", ".")
	git("commit", "-q", "-m", "Integration test commit")
	git("checkout", "-q", "-b", "integration-test-branch")
	git("remote", "add", "origin", "https://github.com/example/integration-test.git")
	head := git("rev-parse", "HEAD")
	m := marker("git-info")
	x.mustRun("-C", x.cwd, "echo "+m)
	g, _ := x.sessionMeta(x.rolloutWith(m))["git"].(map[string]any)
	if g["commit_hash"] != head || g["branch"] != "integration-test-branch" || g["repository_url"] != git("remote", "get-url", "origin") {
		t.Fatalf("session_meta.git = %v (HEAD %s)", g, head)
	}
}

// reviewNoAuth is review.rs's shape: `exec review ARGS
// --skip-git-repo-check -C DIR` with no credentials fails, and not for
// want of a prompt.
func (x *codexExec) reviewNoAuth(args ...string) {
	x.t.Helper()
	x.env["OPENAI_API_KEY"], x.env["OPENAI_BASE_URL"] = "", ""
	_, errOut, code := x.run("", append(append([]string{"review"}, args...), "--skip-git-repo-check", "-C", x.cwd)...)
	if code == 0 || strings.Contains(errOut, "No prompt provided") {
		x.t.Fatalf("review %v: exit %d, stderr %q", args, code, errOut)
	}
}

// review.rs review_command_works_without_prompt,
// review_command_with_base_works_without_prompt,
// review_command_with_commit_works_without_prompt and
// review_command_with_custom_prompt_works; then, with a model, the
// request carries Codex's review request (review_prompts.rs).
func TestCodexExecReviewCommandWorksWithoutPrompt(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--uncommitted"}, "Review the current code changes (staged, unstaged, and untracked files) and provide prioritized findings."},
		{[]string{"--base", "HEAD~1"}, "Review the code changes against the base branch 'HEAD~1'."},
		{[]string{"--commit", "HEAD"}, "Review the code changes introduced by commit HEAD. Provide prioritized, actionable findings."},
		{[]string{"Check for security issues"}, "Check for security issues"},
	}
	for _, c := range cases {
		newCodexExec(t).reviewNoAuth(c.args...)
		x := newCodexExec(t)
		x.sseOnce("no findings")
		out, _ := x.mustRun(append(append([]string{"review"}, c.args...), "--skip-git-repo-check", "-C", x.cwd)...)
		if !strings.Contains(out, "no findings") || !anyContains(userTexts(x.srv.Requests()[0]), c.want) {
			t.Fatalf("review %v: stdout %q, user texts %q", c.args, out, userTexts(x.srv.Requests()[0]))
		}
	}
}

// client_metadata.rs review_rejects_responsesapi_client_metadata.
func TestCodexExecReviewRejectsResponsesAPIClientMetadata(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	_, errOut, code := x.run("", "review", "--uncommitted", "--responsesapi-client-metadata", "usage_source=chronicle")
	if code == 0 || !strings.Contains(errOut, "--responsesapi-client-metadata is only supported for exec user turns") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}
