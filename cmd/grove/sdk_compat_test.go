package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/grovecli/grove/core/model/modeltest"
)

// The official TypeScript SDK (@openai/codex-sdk) runs `codex exec` as
// sdk/typescript/src/exec.ts builds the command line (openai/codex
// 08a1f30ca23f51922d1a4a4965b5ab999b64bead) and reads the JSONL as
// sdk/typescript/src/thread.ts does. Node and the SDK are not available
// offline here, so these tests replicate both, line for line, and point
// them at the grove binary (codexPathOverride).

// sdkExecArgs is CodexExec.run's command line for the options these tests
// use (exec.ts, in its order).
type sdkExecArgs struct {
	input, baseURL, apiKey, threadID, model, sandboxMode, workingDirectory string
	images, additionalDirectories                                          []string
	skipGitRepoCheck                                                       bool
	outputSchemaFile, modelReasoningEffort, approvalPolicy                 string
	networkAccessEnabled                                                   *bool
}

func (a sdkExecArgs) argv() []string {
	args := []string{"exec", "--experimental-json"}
	if a.model != "" {
		args = append(args, "--model", a.model)
	}
	if a.sandboxMode != "" {
		args = append(args, "--sandbox", a.sandboxMode)
	}
	if a.workingDirectory != "" {
		args = append(args, "--cd", a.workingDirectory)
	}
	for _, d := range a.additionalDirectories {
		args = append(args, "--add-dir", d)
	}
	if a.skipGitRepoCheck {
		args = append(args, "--skip-git-repo-check")
	}
	if a.outputSchemaFile != "" {
		args = append(args, "--output-schema", a.outputSchemaFile)
	}
	if a.modelReasoningEffort != "" {
		args = append(args, "--config", fmt.Sprintf("model_reasoning_effort=%q", a.modelReasoningEffort))
	}
	if a.networkAccessEnabled != nil {
		args = append(args, "--config", fmt.Sprintf("sandbox_workspace_write.network_access=%v", *a.networkAccessEnabled))
	}
	if a.approvalPolicy != "" {
		args = append(args, "--config", fmt.Sprintf("approval_policy=%q", a.approvalPolicy))
	}
	if a.threadID != "" {
		args = append(args, "resume", a.threadID)
	}
	for _, img := range a.images {
		args = append(args, "--image", img)
	}
	return append(args, "--", a.input)
}

// sdkTurn is thread.ts's Turn.
type sdkTurn struct {
	threadID      string
	items         []map[string]any
	finalResponse string
	usage         map[string]any
}

// sdkRun runs one turn as Thread.run does: spawn with the SDK's
// environment, keep stdin open (the SDK writes control messages there),
// read stdout lines, fail on turn.failed or a non-zero exit.
func sdkRun(t *testing.T, home string, a sdkExecArgs) (sdkTurn, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang fails, never passes
	defer cancel()
	cmd := exec.CommandContext(ctx, groveBin, a.argv()...)
	env := []string{"GROVE_HOME=" + home, "CODEX_HOME=" + filepath.Join(home, "no-codex"), "TMPDIR=" + filepath.Dir(home),
		"CODEX_INTERNAL_ORIGINATOR_OVERRIDE=codex_sdk_ts"}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "OPENAI_") && !strings.HasPrefix(name, "CODEX_") && name != "GROVE_HOME" && name != "TMPDIR" {
			env = append(env, kv)
		}
	}
	if a.baseURL != "" {
		env = append(env, "OPENAI_BASE_URL="+a.baseURL)
	}
	if a.apiKey != "" {
		env = append(env, "CODEX_API_KEY="+a.apiKey)
	}
	cmd.Env = env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var turn sdkTurn
	var failure error
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var ev map[string]any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("Failed to parse item: %s", sc.Text())
		}
		checkCodexShape(t, sc.Text())
		switch ev["type"] {
		case "thread.started":
			turn.threadID, _ = ev["thread_id"].(string)
		case "item.completed":
			item, _ := ev["item"].(map[string]any)
			if item["type"] == "agent_message" {
				turn.finalResponse, _ = item["text"].(string)
			}
			turn.items = append(turn.items, item)
		case "turn.completed":
			turn.usage, _ = ev["usage"].(map[string]any)
		case "turn.failed":
			e, _ := ev["error"].(map[string]any)
			failure = fmt.Errorf("%v", e["message"])
		}
	}
	if err := cmd.Wait(); err != nil {
		return turn, fmt.Errorf("Codex Exec exited with %v: %s", err, stderr.String())
	}
	return turn, failure
}

// TestSDKRunResumeAndOutputSchema: a run, a resumed thread and an output
// schema, through the SDK's own command lines, against a real provider
// stream (the scripted Chat Completions server).
func TestSDKRunResumeAndOutputSchema(t *testing.T) {
	needBinary(t)
	s := modeltest.NewServer(t)
	s.Handle(func(r modeltest.CapturedRequest) modeltest.Reply {
		msgs := r.Messages()
		if r.OutputFormat() != nil {
			return modeltest.Reply{Text: `{"summary":"all good","files":2}`}
		}
		last, _ := msgs[len(msgs)-1].(map[string]any)
		if strings.Contains(fmt.Sprint(last["content"]), "again") {
			return modeltest.Reply{Text: fmt.Sprintf("resumed with %d messages", len(msgs))}
		}
		return modeltest.Reply{Text: "hello from grove"}
	})
	home, work := t.TempDir(), t.TempDir()
	base := sdkExecArgs{baseURL: s.URL(), apiKey: "sk-sdk-test", model: "test-model", sandboxMode: "workspace-write",
		workingDirectory: work, skipGitRepoCheck: true, modelReasoningEffort: "low", approvalPolicy: "never"}

	first := base
	first.input = "say hello"
	turn, err := sdkRun(t, home, first)
	if err != nil {
		t.Fatal(err)
	}
	if turn.finalResponse != "hello from grove" || turn.threadID == "" || turn.usage == nil {
		t.Fatalf("first turn: %+v", turn)
	}
	if auth := s.Requests()[0].Header.Get("Authorization"); auth != "Bearer sk-sdk-test" {
		t.Fatalf("CODEX_API_KEY not used: %q", auth)
	}

	again := base
	again.input, again.threadID = "again please", turn.threadID
	resumed, err := sdkRun(t, home, again)
	if err != nil {
		t.Fatal(err)
	}
	// system + user + assistant + user.
	if resumed.threadID != turn.threadID || resumed.finalResponse != "resumed with 4 messages" {
		t.Fatalf("resumed turn: %+v", resumed)
	}

	schema := filepath.Join(t.TempDir(), "schema.json")
	if err := os.WriteFile(schema, []byte(`{"type":"object","properties":{"summary":{"type":"string"},"files":{"type":"integer"}},"required":["summary","files"],"additionalProperties":false}`), 0o644); err != nil {
		t.Fatal(err)
	}
	structured := base
	structured.input, structured.outputSchemaFile = "summarize", schema
	out, err := sdkRun(t, home, structured)
	if err != nil {
		t.Fatal(err)
	}
	var parsed struct {
		Summary string
		Files   int
	}
	if err := json.Unmarshal([]byte(out.finalResponse), &parsed); err != nil || parsed.Files != 2 {
		t.Fatalf("structured reply %q: %v", out.finalResponse, err)
	}
	reqs := s.Requests()
	if f := reqs[len(reqs)-1].OutputFormat(); f["type"] != "json_schema" || f["name"] != "codex_output_schema" || f["strict"] != true || f["schema"] == nil {
		t.Fatalf("output format sent: %v", f)
	}
}

// TestSDKWithoutKeyFails: the SDK with no key and no provider gets exit 1
// naming the variable (never the demo model, never exit 0).
func TestSDKWithoutKeyFails(t *testing.T) {
	needBinary(t)
	_, err := sdkRun(t, t.TempDir(), sdkExecArgs{input: "hello", skipGitRepoCheck: true})
	if err == nil || !strings.Contains(err.Error(), "exit status 1") || !strings.Contains(err.Error(), "$OPENAI_API_KEY") {
		t.Fatalf("want exit 1 naming OPENAI_API_KEY, got %v", err)
	}
}
