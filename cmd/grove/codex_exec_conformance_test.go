package main

// The exec conformance suite: cases of openai/codex
// codex-rs/exec/tests/suite/*.rs, each ported as a grove test against the
// in-process Responses mock (core/model/modeltest) serving the events the
// Codex test's wiremock serves, checking what the Codex test checks. Each
// test names its Codex file and test. Cases grove does differently on
// purpose are in docs/codex-compat.md ("exec conformance").

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/google/uuid"

	"github.com/grovecli/grove/core/model/modeltest"
)

// codexExec is one Codex exec test's world: CODEX_HOME (grove's
// GROVE_HOME too), a cwd, the Responses server and the environment the
// real binary runs with (Codex's test_codex_exec + start_mock_server).
// Every case runs the binary TestMain built, so cases run in parallel and
// see the exit status, stdout and stderr a script sees.
type codexExec struct {
	t         *testing.T
	home, cwd string
	srv       *modeltest.Server
	env       map[string]string
}

func newCodexExec(t *testing.T) *codexExec {
	needBinary(t)
	x := &codexExec{t: t, home: t.TempDir(), cwd: t.TempDir(), srv: modeltest.NewServer(t)}
	x.srv.Handle(func(modeltest.CapturedRequest) modeltest.Reply { return modeltest.Reply{Text: "fixture hello"} })
	x.env = map[string]string{
		"GROVE_HOME": x.home, "CODEX_HOME": x.home, "OPENAI_BASE_URL": x.srv.URL(), "OPENAI_API_KEY": "dummy",
		"TMPDIR": t.TempDir(), "CODEX_API_KEY": "", "CODEX_INTERNAL_ORIGINATOR_OVERRIDE": "",
		// grove snapshots the login shell's environment (bash -l): a
		// home of its own keeps the machine's profile scripts (and their
		// seconds) out of every run. PATH loses version-manager shims,
		// which need the real home.
		"HOME": t.TempDir(), "PATH": pathWithoutShims(),
	}
	return x
}

func pathWithoutShims() string {
	var keep []string
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if !strings.Contains(dir, "/shims") {
			keep = append(keep, dir)
		}
	}
	return strings.Join(keep, string(filepath.ListSeparator))
}

// environ is the binary's environment: the test process's, with x.env
// laid over it (an empty value unsets the variable).
func (x *codexExec) environ() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if _, ok := x.env[name]; !ok {
			env = append(env, kv)
		}
	}
	for k, v := range x.env {
		if v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// command is `grove exec ARGS` as a script starts it, in x.cwd.
func (x *codexExec) command(args ...string) *exec.Cmd {
	cmd := exec.Command(groveBin, append([]string{"exec"}, args...)...)
	cmd.Dir, cmd.Env = x.cwd, x.environ()
	return cmd
}

// run is `codex exec ARGS` with stdin piped: stdout, stderr and the exit
// code.
func (x *codexExec) run(stdin string, args ...string) (string, string, int) {
	x.t.Helper()
	cmd := x.command(args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return out.String(), errb.String(), 0
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		return out.String(), errb.String(), ee.ExitCode()
	}
	x.t.Fatalf("run grove exec %v: %v\n%s", args, err, errb.String())
	return "", "", -1
}

// mustRun is run that expects exit 0.
func (x *codexExec) mustRun(args ...string) (string, string) {
	x.t.Helper()
	out, errOut, code := x.run("", args...)
	if code != 0 {
		x.t.Fatalf("exec %v: exit %d\n%s", args, code, errOut)
	}
	return out, errOut
}

// rolloutWith is the rollout file that holds marker ("" when none):
// Codex's find_session_file_containing_marker.
func (x *codexExec) rolloutWith(marker string) string {
	found := ""
	_ = filepath.WalkDir(filepath.Join(x.home, "sessions"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") || found != "" {
			return nil
		}
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), marker) {
			found = p
		}
		return nil
	})
	return found
}

// sessionOf is the session id of the rollout holding marker.
func (x *codexExec) sessionOf(marker string) string {
	x.t.Helper()
	path := x.rolloutWith(marker)
	if path == "" {
		x.t.Fatalf("no rollout holds %q", marker)
	}
	// grove names a rollout rollout-<time>-<session id>.jsonl.
	base := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	if len(base) > 36 {
		if id := base[len(base)-36:]; uuid.Validate(id) == nil {
			return id
		}
	}
	x.t.Fatalf("no session id in %s", path)
	return ""
}

func marker(prefix string) string { return prefix + "-" + uuid.NewString() }

// lastUserText is the last user message the model received.
func lastUserText(r modeltest.CapturedRequest) string {
	msgs := r.Messages()
	for i := len(msgs) - 1; i >= 0; i-- {
		m, _ := msgs[i].(map[string]any)
		if m["role"] == "user" {
			if s, ok := m["content"].(string); ok {
				return s
			}
			b, _ := json.Marshal(m["content"])
			return string(b)
		}
	}
	return ""
}

// sameFile checks that the resumed run appended to the first run's rollout.
func (x *codexExec) sameFile(first, second, what string) {
	x.t.Helper()
	p1, p2 := x.rolloutWith(first), x.rolloutWith(second)
	if p1 == "" || p1 != p2 {
		x.t.Fatalf("%s: markers in %q and %q, want one file", what, p1, p2)
	}
}

// resume.rs exec_resume_last_appends_to_existing_file:
// `exec PROMPT resume --last`.
func TestCodexExecResumeLastAppendsToExistingFile(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	m1, m2 := marker("resume-last"), marker("resume-last-2")
	x.mustRun("--skip-git-repo-check", "-C", x.cwd, "echo "+m1)
	x.mustRun("--skip-git-repo-check", "-C", x.cwd, "echo "+m2, "resume", "--last")
	x.sameFile(m1, m2, "resume --last should append to existing file")
}

// resume.rs exec_resume_last_accepts_prompt_after_flag_in_json_mode.
func TestCodexExecResumeLastAcceptsPromptAfterFlagInJSONMode(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	m1, m2 := marker("resume-last-json"), marker("resume-last-json-2")
	x.mustRun("--skip-git-repo-check", "-C", x.cwd, "echo "+m1)
	x.mustRun("--skip-git-repo-check", "-C", x.cwd, "--json", "resume", "--last", "echo "+m2)
	x.sameFile(m1, m2, "resume --last should append to existing file")
}

// resume.rs exec_resume_last_respects_cwd_filter_and_all_flag (the
// updated_at ordering is the index's; no sleeps are needed).
func TestCodexExecResumeLastRespectsCwdFilterAndAllFlag(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	dirA, dirB := t.TempDir(), t.TempDir()
	mA, mB := marker("resume-cwd-a"), marker("resume-cwd-b")
	x.mustRun("--skip-git-repo-check", "-C", dirA, "echo "+mA)
	x.mustRun("--skip-git-repo-check", "-C", dirB, "echo "+mB)
	idB := x.sessionOf(mB)
	mBTouch := marker("resume-cwd-b-touch")
	x.mustRun("--skip-git-repo-check", "-C", dirB, "resume", idB, "echo "+mBTouch)
	// --all: the newest of every directory (B), though run from A.
	mB2 := marker("resume-cwd-b-2")
	x.mustRun("--skip-git-repo-check", "-C", dirA, "resume", "--last", "--all", "echo "+mB2)
	x.sameFile(mB, mB2, "resume --last --all should pick newest session")
	// B's last turn ran in A: a plain --last from A now picks B.
	mA2 := marker("resume-cwd-a-2")
	x.mustRun("--skip-git-repo-check", "-C", dirA, "resume", "--last", "echo "+mA2)
	x.sameFile(mB, mA2, "resume --last should prefer sessions whose latest turn context matches the current cwd")
	// And without --all, a directory with no session of its own gets none.
	if _, errOut, code := x.run("", "--skip-git-repo-check", "-C", t.TempDir(), "resume", "--last", "hi"); code == 0 || !strings.Contains(errOut, "no session in") {
		t.Fatalf("resume --last in a new directory: exit %d %s", code, errOut)
	}
}

// Issue 34: the resumed turn runs in the current directory (-C), not in
// the session's old one, and the model is told.
func TestCodexExecResumedTurnRunsInCurrentCwd(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	dirA, dirB := t.TempDir(), t.TempDir()
	m := marker("cwd-move")
	x.mustRun("--skip-git-repo-check", "-C", dirA, "echo "+m)
	id := x.sessionOf(m)
	x.srv.Handle(func(r modeltest.CapturedRequest) modeltest.Reply {
		if lastRole(r) == "tool" {
			return modeltest.Reply{Text: "done"}
		}
		return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "pwd1", Name: "exec_command", Arguments: `{"cmd":"pwd > where.txt"}`}}}
	})
	x.mustRun("--skip-git-repo-check", "--full-auto", "-C", dirB, "resume", id, "where are you")
	if b, err := os.ReadFile(filepath.Join(dirB, "where.txt")); err != nil || strings.TrimSpace(string(b)) != dirB {
		t.Fatalf("the resumed turn's command did not run in -C %s: %q %v", dirB, b, err)
	}
	if _, err := os.Stat(filepath.Join(dirA, "where.txt")); err == nil {
		t.Fatal("the resumed turn ran in the session's old directory")
	}
	reqs := x.srv.Requests()
	told := false
	for _, m := range reqs[len(reqs)-1].Messages() {
		if c, _ := m.(map[string]any)["content"].(string); strings.Contains(c, "<cwd>"+dirB+"</cwd>") {
			told = true
		}
	}
	if !told {
		t.Fatal("the model was not told the new cwd")
	}
}

func lastRole(r modeltest.CapturedRequest) string {
	msgs := r.Messages()
	m, _ := msgs[len(msgs)-1].(map[string]any)
	s, _ := m["role"].(string)
	return s
}

// resume.rs exec_resume_accepts_global_flags_after_subcommand.
func TestCodexExecResumeAcceptsGlobalFlagsAfterSubcommand(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	x.mustRun("--skip-git-repo-check", "-C", x.cwd, "echo seed-resume-session")
	x.mustRun("resume", "--last", "--config", `openai_base_url="`+x.srv.URL()+`"`, "--json", "--model", "gpt-5.2-codex",
		"--config", "reasoning_level=xhigh", "--dangerously-bypass-approvals-and-sandbox", "--skip-git-repo-check", "-C", x.cwd,
		"echo resume-with-global-flags-after-subcommand")
}

// resume.rs exec_resume_includes_output_schema_in_request.
func TestCodexExecResumeIncludesOutputSchemaInRequest(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	schema := map[string]any{"type": "object", "properties": map[string]any{"answer": map[string]any{"type": "string"}}, "required": []any{"answer"}, "additionalProperties": false}
	path := filepath.Join(x.cwd, "schema.json")
	b, _ := json.MarshalIndent(schema, "", "  ")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	x.mustRun("--skip-git-repo-check", "-C", x.cwd, "echo seed-resume-session")
	x.mustRun("--skip-git-repo-check", "-C", x.cwd, "resume", "--last", "--json", "--output-schema", path, "echo resume-with-schema")
	reqs := x.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	checkSchemaFormat(t, reqs[1], schema)
}

func checkSchemaFormat(t *testing.T, r modeltest.CapturedRequest, schema map[string]any) {
	t.Helper()
	text, _ := r.Body["text"].(map[string]any)
	got, _ := json.Marshal(text["format"])
	want, _ := json.Marshal(map[string]any{"name": "codex_output_schema", "type": "json_schema", "strict": true, "schema": schema})
	if string(got) != string(want) {
		t.Fatalf("text.format %s, want %s", got, want)
	}
}

// resume.rs exec_resume_by_id_appends_to_existing_file: `exec PROMPT resume ID`.
func TestCodexExecResumeByIDAppendsToExistingFile(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	m1, m2 := marker("resume-by-id"), marker("resume-by-id-2")
	x.mustRun("--skip-git-repo-check", "-C", x.cwd, "echo "+m1)
	id := x.sessionOf(m1)
	x.mustRun("--skip-git-repo-check", "-C", x.cwd, "echo "+m2, "resume", id)
	x.sameFile(m1, m2, "resume by id should append to existing file")
}

// resume.rs exec_resume_preserves_cli_configuration_overrides: the
// stderr header names the resumed run's model and sandbox.
func TestCodexExecResumePreservesCLIConfigurationOverrides(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	m1, m2 := marker("resume-config"), marker("resume-config-2")
	x.mustRun("--skip-git-repo-check", "--sandbox", "workspace-write", "--model", "gpt-5.1", "-C", x.cwd, "echo "+m1)
	_, errOut := x.mustRun("--skip-git-repo-check", "--sandbox", "workspace-write", "--model", "gpt-5.1-high", "-C", x.cwd, "echo "+m2, "resume", "--last")
	if !strings.Contains(errOut, "model: gpt-5.1-high") || !strings.Contains(errOut, "sandbox: workspace-write") {
		t.Fatalf("stderr missing the overrides: %s", errOut)
	}
	x.sameFile(m1, m2, "resume should append to same file")
	if r := x.srv.Requests(); r[len(r)-1].Body["model"] != "gpt-5.1-high" {
		t.Fatalf("model sent %v", r[len(r)-1].Body["model"])
	}
}

// resume.rs exec_resume_last_with_prompt_as_positional_after_flag.
func TestCodexExecResumeLastWithPromptAsPositionalAfterFlag(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	m1, m2 := marker("resume-last-positional"), marker("resume-last-positional-2")
	x.mustRun("--skip-git-repo-check", "-C", x.cwd, "echo "+m1)
	x.mustRun("--skip-git-repo-check", "-C", x.cwd, "resume", "--last", "echo "+m2)
	x.sameFile(m1, m2, "resume --last should append to existing file")
}

// resume.rs exec_resume_last_rejects_real_uuid_as_session_id,
// exec_resume_last_rejects_positional_before_flag and
// exec_resume_last_conflicts_with_session_id: `resume X --last` is
// refused with clap's "cannot be used with".
func TestCodexExecResumeLastRejectsPositionalBeforeFlag(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	for _, positional := range []string{uuid.NewString(), "echo test"} {
		_, errOut, code := x.run("", "--skip-git-repo-check", "-C", x.cwd, "resume", positional, "--last")
		if code == 0 || !strings.Contains(errOut, "cannot be used with") {
			t.Fatalf("resume %q --last: exit %d, stderr %q", positional, code, errOut)
		}
	}
	if len(x.srv.Requests()) != 0 {
		t.Fatal("a refused resume reached the model")
	}
}

// resume.rs exec_resume_rejects_invalid_session_id and
// exec_resume_rejects_nonexistent_valid_uuid.
func TestCodexExecResumeRejectsUnknownSessionID(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	for _, id := range []string{"sdfsdfgfds2546456", uuid.NewString()} {
		_, errOut, code := x.run("", "--skip-git-repo-check", "-C", x.cwd, "resume", id, "2+2")
		if code == 0 || !strings.Contains(errOut, "No saved session found with ID") {
			t.Fatalf("resume %s: exit %d, stderr %q", id, code, errOut)
		}
	}
}

// resume.rs exec_resume_accepts_images_after_subcommand.
func TestCodexExecResumeAcceptsImagesAfterSubcommand(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	x.mustRun("--skip-git-repo-check", "-C", x.cwd, "echo "+marker("resume-image"))
	png := []byte{0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4, 0x89, 0x00, 0x00, 0x00, 0x0A, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x00, 0x01, 0x00, 0x00, 0x05, 0x00, 0x01, 0x0D, 0x0A, 0x2D, 0xB4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82}
	img1, img2 := filepath.Join(x.cwd, "resume_image.png"), filepath.Join(x.cwd, "resume_image_2.png")
	for _, p := range []string{img1, img2} {
		if err := os.WriteFile(p, png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	x.mustRun("--skip-git-repo-check", "-C", x.cwd, "resume", "--last", "--image", img1, "--image", img2, "echo "+marker("resume-image-2"))
	reqs := x.srv.Requests()
	if n := strings.Count(lastUserText(reqs[len(reqs)-1]), "data:image/png;base64,"); n != 2 {
		t.Fatalf("resume prompt should include both attached images, got %d", n)
	}
}

// prompt_stdin.rs exec_appends_piped_stdin_to_prompt_argument.
func TestCodexExecAppendsPipedStdinToPromptArgument(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	if _, errOut, code := x.run("my output\n", "--skip-git-repo-check", "-C", x.cwd, "-m", "gpt-5.1", "Summarize this concisely"); code != 0 {
		t.Fatal(errOut)
	}
	if got := lastUserText(x.srv.Requests()[0]); got != "Summarize this concisely\n\n<stdin>\nmy output\n</stdin>" {
		t.Fatalf("user message %q", got)
	}
}

// prompt_stdin.rs exec_ignores_empty_piped_stdin_when_prompt_argument_is_present.
func TestCodexExecIgnoresEmptyPipedStdinWithPromptArgument(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	if _, errOut, code := x.run("", "--skip-git-repo-check", "-C", x.cwd, "-m", "gpt-5.1", "Summarize this concisely"); code != 0 {
		t.Fatal(errOut)
	}
	if got := lastUserText(x.srv.Requests()[0]); got != "Summarize this concisely" {
		t.Fatalf("user message %q", got)
	}
}

// prompt_stdin.rs exec_dash_prompt_reads_stdin_as_the_prompt and
// exec_without_prompt_argument_reads_piped_stdin_as_the_prompt: the
// trailing newline is kept.
func TestCodexExecStdinPromptKeepsTrailingNewline(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"-"}, nil} {
		x := newCodexExec(t)
		if _, errOut, code := x.run("prompt from stdin\n", append([]string{"--skip-git-repo-check", "-C", x.cwd, "-m", "gpt-5.1"}, args...)...); code != 0 {
			t.Fatal(errOut)
		}
		if got := lastUserText(x.srv.Requests()[0]); got != "prompt from stdin\n" {
			t.Fatalf("args %v: user message %q", args, got)
		}
	}
}

// prompt_stdin.rs exec_without_prompt_argument_rejects_empty_piped_stdin
// and exec_dash_prompt_rejects_empty_piped_stdin: exit 1, Codex's
// message, no rollout.
func TestCodexExecRejectsEmptyPipedStdin(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{nil, {"-"}} {
		x := newCodexExec(t)
		_, errOut, code := x.run("", append([]string{"--skip-git-repo-check", "-C", x.cwd}, args...)...)
		if code != 1 || !strings.Contains(errOut, "No prompt provided via stdin.") {
			t.Fatalf("args %v: exit %d, stderr %q", args, code, errOut)
		}
		if x.rolloutWith("") != "" {
			t.Fatalf("args %v: a rollout was written", args)
		}
	}
}

// originator.rs send_codex_exec_originator.
func TestCodexExecSendsOriginator(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	x.mustRun("--skip-git-repo-check", "-C", x.cwd, "tell me something")
	if got := x.srv.Requests()[0].Header.Get("Originator"); got != "codex_exec" {
		t.Fatalf("Originator %q", got)
	}
}

// originator.rs supports_originator_override.
func TestCodexExecSupportsOriginatorOverride(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	x.env["CODEX_INTERNAL_ORIGINATOR_OVERRIDE"] = "codex_exec_override"
	x.mustRun("--skip-git-repo-check", "-C", x.cwd, "tell me something")
	if got := x.srv.Requests()[0].Header.Get("Originator"); got != "codex_exec_override" {
		t.Fatalf("Originator %q", got)
	}
}

// client_metadata.rs exec_passes_responsesapi_client_metadata_to_turn_header.
func TestCodexExecPassesClientMetadataToTurnHeader(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	x.mustRun("--skip-git-repo-check", "-C", x.cwd, "--responsesapi-client-metadata", "usage_source=chronicle",
		"--responsesapi-client-metadata", "feature=memory_summary", "tell me something")
	var meta map[string]any
	h := x.srv.Requests()[0].Header.Get("x-codex-turn-metadata")
	if err := json.Unmarshal([]byte(h), &meta); err != nil {
		t.Fatalf("x-codex-turn-metadata %q: %v", h, err)
	}
	if meta["usage_source"] != "chronicle" || meta["feature"] != "memory_summary" || meta["turn_id"] == nil {
		t.Fatalf("metadata %v", meta)
	}
}

// broken_pipe.rs json_streaming_exits_cleanly_when_stdout_closes: the
// real binary, its stdout closed after the first line, exits 0.
func TestCodexExecJSONExitsCleanlyWhenStdoutCloses(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	x.srv.Handle(func(modeltest.CapturedRequest) modeltest.Reply {
		return modeltest.Reply{Text: strings.Repeat("a long answer ", 2000), ChunkSize: 64}
	})
	cmd := x.command("--skip-git-repo-check", "-C", x.cwd, "--json", "echo broken pipe handling")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	first, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.Contains(first, "thread.started") {
		t.Fatalf("first line %q: %v", first, err)
	}
	_ = stdout.Close()
	err = cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			t.Fatalf("killed by %v (Codex exits 0)", ws.Signal())
		}
		t.Fatalf("exit %d, want 0", ee.ExitCode())
	}
	if err != nil {
		t.Fatal(err)
	}
}

// output_schema.rs exec_includes_output_schema_in_request and
// exec_includes_output_schema_for_codex_family.
func TestCodexExecIncludesOutputSchemaInRequest(t *testing.T) {
	t.Parallel()
	for _, model := range []string{"gpt-5", "gpt-5-codex"} {
		x := newCodexExec(t)
		schema := map[string]any{"type": "object", "properties": map[string]any{"answer": map[string]any{"type": "string"}}, "required": []any{"answer"}, "additionalProperties": false}
		path := filepath.Join(x.cwd, "schema.json")
		b, _ := json.MarshalIndent(schema, "", "  ")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		x.mustRun("--skip-git-repo-check", "-C", x.cwd, "--output-schema", path, "-m", model, "tell me a joke")
		reqs := x.srv.Requests()
		if len(reqs) != 1 || !strings.HasSuffix(reqs[0].Path, "/v1/responses") {
			t.Fatalf("%s: requests %d, path %s", model, len(reqs), reqs[0].Path)
		}
		checkSchemaFormat(t, reqs[0], schema)
	}
}

// server_error_exit.rs exits_non_zero_when_server_reports_error:
// response.failed → exit 1.
func TestCodexExecExitsNonZeroWhenServerReportsError(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	x.srv.Handle(func(modeltest.CapturedRequest) modeltest.Reply {
		return modeltest.Reply{Recorded: []string{`{"type":"response.failed","response":{"id":"resp_err_1","error":{"code":"rate_limit_exceeded","message":"synthetic server error"}}}`}}
	})
	x.env["GROVE_TEST_NO_RETRY_DELAY"] = "1"
	if _, errOut, code := x.run("", "--skip-git-repo-check", "-C", x.cwd, "-c", "model_providers.openai.request_max_retries=0", "-c", "model_providers.openai.stream_max_retries=0", "tell me something", "--experimental-json"); code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, errOut)
	}
}

// exec/src/event_processor_with_jsonl_output_tests.rs
// failed_turn_does_not_overwrite_output_last_message_file: a turn that
// fails after a partial answer leaves -o's file as it was.
func TestCodexExecFailedTurnDoesNotOverwriteOutputLastMessageFile(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	x.srv.Handle(func(modeltest.CapturedRequest) modeltest.Reply {
		return modeltest.Reply{Recorded: []string{
			`{"type":"response.output_item.done","item":{"type":"message","role":"assistant","id":"msg-1","content":[{"type":"output_text","text":"partial answer"}]}}`,
			`{"type":"response.failed","response":{"id":"resp_err_1","error":{"code":"server_error","message":"turn failed"}}}`,
		}}
	})
	x.env["GROVE_TEST_NO_RETRY_DELAY"] = "1"
	out := filepath.Join(t.TempDir(), "last-message.txt")
	if err := os.WriteFile(out, []byte("keep existing contents"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := x.run("", "--skip-git-repo-check", "-C", x.cwd, "-c", "model_providers.openai.request_max_retries=0", "-c", "model_providers.openai.stream_max_retries=0", "-o", out, "--json", "hi"); code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, errOut)
	}
	if b, _ := os.ReadFile(out); string(b) != "keep existing contents" {
		t.Fatalf("-o after a failed turn holds %q", b)
	}
}

// auth_env.rs exec_uses_codex_api_key_env_var: CODEX_API_KEY is the
// bearer token.
func TestCodexExecUsesCodexAPIKeyEnvVar(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	x.env["OPENAI_API_KEY"], x.env["CODEX_API_KEY"] = "", "dummy"
	x.mustRun("--skip-git-repo-check", "-C", x.cwd, "echo testing codex api key")
	if got := x.srv.Requests()[0].Header.Get("Authorization"); got != "Bearer dummy" {
		t.Fatalf("Authorization %q", got)
	}
}

// add_dir.rs accepts_add_dir_flag and accepts_multiple_add_dir_flags.
func TestCodexExecAcceptsAddDirFlags(t *testing.T) {
	t.Parallel()
	for _, n := range []int{2, 3} {
		x := newCodexExec(t)
		args := []string{"--skip-git-repo-check", "-C", x.cwd, "--sandbox", "workspace-write"}
		for i := 0; i < n; i++ {
			args = append(args, "--add-dir", t.TempDir())
		}
		x.mustRun(append(args, "test with additional directories")...)
	}
}

// session.rs json_mode_emits_session_configured_event: grove's --json is
// Codex's current JSONL (thread.started carries the session id; the
// rollout exists). The legacy session_configured line is not emitted.
func TestCodexExecJSONModeNamesTheSession(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	out, _ := x.mustRun("--json", "--skip-git-repo-check", "-C", x.cwd, "hello from json test")
	var first struct {
		Type     string `json:"type"`
		ThreadID string `json:"thread_id"`
	}
	if err := json.Unmarshal([]byte(strings.SplitN(out, "\n", 2)[0]), &first); err != nil || first.Type != "thread.started" || first.ThreadID == "" {
		t.Fatalf("first line %q: %v", out, err)
	}
	if x.rolloutWith("hello from json test") == "" {
		t.Fatal("no rollout")
	}
}

// Issue 34: OPENAI_BASE_URL (and openai_base_url) keep the Responses wire
// (codex-rs/core/tests/suite/client.rs drives the Responses mock through
// the built-in provider's base URL).
func TestCodexExecOpenAIBaseURLKeepsResponsesWire(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	x.mustRun("--skip-git-repo-check", "-C", x.cwd, "hi")
	x.env["OPENAI_BASE_URL"] = ""
	x.mustRun("--skip-git-repo-check", "-C", x.cwd, "-c", `openai_base_url="`+x.srv.URL()+`"`, "hi")
	for i, r := range x.srv.Requests() {
		if r.Path != "/v1/responses" {
			t.Fatalf("request %d went to %s, Codex sends /v1/responses", i, r.Path)
		}
	}
}

// Issue 34: command_execution's aggregated_output is the command's own
// output (codex-rs/exec/src/exec_events.rs CommandExecutionItem).
func TestCodexExecAggregatedOutputIsTheCommandsOwn(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	x.srv.Handle(func(r modeltest.CapturedRequest) modeltest.Reply {
		if lastRole(r) == "tool" {
			return modeltest.Reply{Text: "done"}
		}
		return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: "exec_command", Arguments: `{"cmd":"printf 'one\\ntwo\\n'"}`}}}
	})
	out, _ := x.mustRun("--json", "--full-auto", "--skip-git-repo-check", "-C", x.cwd, "run it")
	for _, line := range strings.Split(out, "\n") {
		var ev struct {
			Type string `json:"type"`
			Item struct {
				Type             string `json:"type"`
				AggregatedOutput string `json:"aggregated_output"`
				ExitCode         *int   `json:"exit_code"`
			} `json:"item"`
		}
		if json.Unmarshal([]byte(line), &ev) != nil || ev.Type != "item.completed" || ev.Item.Type != "command_execution" {
			continue
		}
		if ev.Item.AggregatedOutput != "one\ntwo\n" || ev.Item.ExitCode == nil || *ev.Item.ExitCode != 0 {
			t.Fatalf("command item: %s", line)
		}
		return
	}
	t.Fatalf("no command_execution item:\n%s", out)
}

// Issue 34: an MCP server with required = true that cannot start fails
// the run (Codex: codex-rs/core/tests/suite/rmcp_client.rs required
// servers; exec exits non-zero).
func TestCodexExecRequiredMCPServerFailureExitsNonZero(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	cfg := "[mcp_servers.broken]\ncommand = \"" + filepath.Join(x.cwd, "no-such-server") + "\"\nrequired = true\nstartup_timeout_sec = 5\n"
	if err := os.WriteFile(filepath.Join(x.home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := x.run("", "--skip-git-repo-check", "-C", x.cwd, "hi")
	if code != 1 || !strings.Contains(errOut, "required MCP servers failed to initialize: broken") || !strings.Contains(errOut, "`broken` is required but failed to start") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if len(x.srv.Requests()) != 0 {
		t.Fatal("the turn ran without its required server")
	}
	// Not required: the run goes on without it.
	cfg = strings.Replace(cfg, "required = true\n", "", 1)
	if err := os.WriteFile(filepath.Join(x.home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	x.mustRun("--skip-git-repo-check", "-C", x.cwd, "hi")
}

// Issue 34: a stream that closes early is retried by stream_max_retries,
// not request_max_retries (codex-rs/core/tests/suite/stream_no_completed.rs
// retries_on_early_close).
func TestCodexExecStreamMaxRetriesBoundsBrokenStreams(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	var calls atomic.Int32 // handlers run on the server's goroutines
	x.srv.Handle(func(modeltest.CapturedRequest) modeltest.Reply {
		if calls.Add(1) == 1 {
			return modeltest.Reply{Text: "partial", TruncateAfterChunks: 1}
		}
		return modeltest.Reply{Text: "fixture hello"}
	})
	// request_max_retries = 0 does not stop the stream retry.
	out, errOut := x.mustRun("--skip-git-repo-check", "-C", x.cwd, "-c", "model_providers.openai.request_max_retries=0",
		"-c", "model_providers.openai.stream_max_retries=1", "-c", "model_providers.openai.stream_idle_timeout_ms=60000", "hi")
	if !strings.Contains(out, "fixture hello") || len(x.srv.Requests()) != 2 {
		t.Fatalf("stdout %q, %d requests\n%s", out, len(x.srv.Requests()), errOut)
	}
	// stream_max_retries = 0: the broken stream fails the run.
	calls.Store(0)
	if _, _, code := x.run("", "--skip-git-repo-check", "-C", x.cwd, "-c", "model_providers.openai.stream_max_retries=0", "hi"); code == 0 {
		t.Fatal("a broken stream with stream_max_retries = 0 succeeded")
	}
}

// Issue 34: Codex's stderr header (codex-rs/exec/src/event_processor_with_human_output.rs;
// approval_policy.rs checks "approval: …" in it).
func TestCodexExecStderrHeader(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	_, errOut := x.mustRun("--skip-git-repo-check", "-C", x.cwd, "-m", "gpt-5.1", "--dangerously-bypass-approvals-and-sandbox", "check approval mode")
	for _, want := range []string{"workdir: " + x.cwd, "model: gpt-5.1", "provider: openai", "approval: never", "sandbox: danger-full-access", "session id: "} {
		if !strings.Contains(errOut, want) {
			t.Fatalf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	out, errOut := x.mustRun("--json", "--skip-git-repo-check", "-C", x.cwd, "quiet")
	if strings.Contains(errOut, "session id:") || !strings.HasPrefix(out, "{") {
		t.Fatalf("--json mode printed the header: %q / %q", errOut, out)
	}
}

// approval_policy.rs exec_preserves_on_request_for_auto_review_config
// (the approval line of the header; approvals_reviewer is Codex's own).
func TestCodexExecHeaderShowsConfiguredApproval(t *testing.T) {
	t.Parallel()
	x := newCodexExec(t)
	if err := os.WriteFile(filepath.Join(x.home, "config.toml"), []byte("approval_policy = \"on-request\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, errOut := x.mustRun("--skip-git-repo-check", "-C", x.cwd, "check approval mode")
	if !strings.Contains(errOut, "approval: on-request") {
		t.Fatalf("stderr: %s", errOut)
	}
}
