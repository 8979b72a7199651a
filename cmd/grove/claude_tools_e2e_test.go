package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/grovecli/grove/core/model/modeltest"
)

// claudeStep is one model turn of the scripted Claude session: the call
// to make, given what the previous call answered; nil ends the script.
type claudeStep func(prev string) *modeltest.ToolCall

// scriptedClaude serves a session turn by turn: each request gets the
// next step's call (the step sees the last tool result), and the request
// bodies are kept for the checks.
type scriptedClaude struct {
	mu      sync.Mutex
	steps   []claudeStep
	i       int
	answers []string // every tool result the model received, in order
	tools   [][]string
}

func (s *scriptedClaude) handle(r modeltest.CapturedRequest) modeltest.Reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tools = append(s.tools, r.ToolNames())
	msgs := r.Messages()
	prev := ""
	if last, _ := msgs[len(msgs)-1].(map[string]any); last["role"] == "tool" {
		prev, _ = last["content"].(string)
		s.answers = append(s.answers, prev)
	}
	for s.i < len(s.steps) {
		call := s.steps[s.i](prev)
		if call == nil { // the step is satisfied; ask the next one
			s.i++
			continue
		}
		if call.ID == "" {
			call.ID = fmt.Sprintf("call_%d", len(s.answers))
		}
		if !strings.HasPrefix(call.ID, "poll") {
			s.i++
		}
		return modeltest.Reply{ToolCalls: []modeltest.ToolCall{*call}}
	}
	return modeltest.Reply{Text: "done"}
}

func claudeCall(name string, args any) claudeStep {
	b, _ := json.Marshal(args)
	return func(string) *modeltest.ToolCall { return &modeltest.ToolCall{Name: name, Arguments: string(b)} }
}

// TestClaudeToolsScriptedSessionAgainstTheBinary drives the real binary
// with a Claude model through Claude Code's tools: Write, Read, Edit (one
// refused before Read, one refused as ambiguous, one that lands), Bash
// (its directory persisting), a background shell read with BashOutput and
// stopped with TaskStop, Glob, Grep and TodoWrite. It judges the files on
// disk and what the model received; the Claude model is offered exactly
// Claude Code's tools.
func TestClaudeToolsScriptedSessionAgainstTheBinary(t *testing.T) {
	needBinary(t)
	work := t.TempDir()
	if err := os.MkdirAll(filepath.Join(work, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	pre := filepath.Join(work, "pre.txt")
	if err := os.WriteFile(pre, []byte("alpha\nbeta\nalpha\ngamma\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	notes := filepath.Join(work, "sub", "notes.txt")
	marker := fmt.Sprintf("grove-claude-bg-%d", os.Getpid())
	defer killMarked(marker)
	// The background shell's id, as Bash answered it.
	bgID := ""
	idIn := regexp.MustCompile(`ID: (bash_\d+)`)
	withID := func(name, key string) claudeStep {
		return func(prev string) *modeltest.ToolCall {
			if m := idIn.FindStringSubmatch(prev); m != nil && bgID == "" {
				bgID = m[1]
			}
			b, _ := json.Marshal(map[string]string{key: bgID})
			return &modeltest.ToolCall{Name: name, Arguments: string(b)}
		}
	}
	pollUntil := func(want string) claudeStep {
		polls := 0
		first := withID("BashOutput", "bash_id")
		return func(prev string) *modeltest.ToolCall {
			if strings.Contains(prev, want) || polls == 500 {
				return nil // 500 polls without it: the checks below report it
			}
			polls++
			c := first(prev)
			c.ID = fmt.Sprintf("poll_%d", polls)
			return c
		}
	}
	s := &scriptedClaude{steps: []claudeStep{
		claudeCall("Write", map[string]any{"file_path": notes, "content": "first line\nsecond line\n"}),
		claudeCall("Edit", map[string]any{"file_path": pre, "old_string": "beta", "new_string": "BETA"}),
		claudeCall("Read", map[string]any{"file_path": pre}),
		claudeCall("Edit", map[string]any{"file_path": pre, "old_string": "alpha", "new_string": "ALPHA"}),
		claudeCall("Edit", map[string]any{"file_path": pre, "old_string": "beta\nalpha", "new_string": "beta\nomega"}),
		claudeCall("Bash", map[string]any{"command": "cd sub && pwd", "description": "Enter sub"}),
		claudeCall("Bash", map[string]any{"command": "ls", "description": "List where we are"}),
		claudeCall("Bash", map[string]any{"command": "echo started-" + marker + "; exec sleep 600", "run_in_background": true, "description": "Start a long job"}),
		pollUntil("started-" + marker),
		withID("TaskStop", "task_id"),
		withID("BashOutput", "bash_id"),
		claudeCall("Glob", map[string]any{"pattern": "**/*.txt"}),
		claudeCall("Grep", map[string]any{"pattern": "omega|second", "output_mode": "content", "-n": true}),
		claudeCall("TodoWrite", map[string]any{"todos": []map[string]any{{"content": "Check files", "status": "completed", "activeForm": "Checking files"}, {"content": "Report", "status": "in_progress", "activeForm": "Reporting"}}}),
	}}
	srv := modeltest.NewServer(t)
	srv.Handle(s.handle)
	home := t.TempDir()
	p := startGrove(t, providerEnv(home, srv.URL()), "exec", "--json=grove", "--cd", work, "-m", "claude-sonnet-4-5", "run the scripted session")
	select {
	case <-p.done:
	case <-time.After(60 * time.Second):
		s.mu.Lock()
		t.Fatalf("grove did not exit within 60 s; the model received:\n%s\nstderr:\n%s", strings.Join(s.answers, "\n---\n"), p.stderr.String())
	}
	if code, _ := p.waitExit(t, time.Now()); code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s\nstdout:\n%s", code, p.stderr.String(), p.stdout.String())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	// Files on disk.
	if b, _ := os.ReadFile(notes); string(b) != "first line\nsecond line\n" {
		t.Errorf("notes.txt = %q", b)
	}
	if b, _ := os.ReadFile(pre); string(b) != "alpha\nbeta\nomega\ngamma\n" {
		t.Errorf("pre.txt = %q (the refused edits must leave it alone, the unique one land)", b)
	}
	// What the model received, in order.
	want := []*regexp.Regexp{
		regexp.MustCompile(`^File created successfully at: ` + regexp.QuoteMeta(notes) + `$`),
		regexp.MustCompile(`^File has not been read yet\. Read it first before writing to it\.$`),
		regexp.MustCompile(`^     1→alpha\n     2→beta\n     3→alpha\n     4→gamma$`),
		regexp.MustCompile(`^Found 2 matches of the string to replace, but replace_all is false\. .*\nString: alpha$`),
		regexp.MustCompile(`^The file ` + regexp.QuoteMeta(pre) + ` has been updated\. Here's the result of running ` + "`cat -n`" + ` on a snippet of the edited file:\n     1→alpha\n     2→beta\n     3→omega\n     4→gamma$`),
		regexp.MustCompile(`^` + regexp.QuoteMeta(filepath.Join(work, "sub")) + `$`),
		regexp.MustCompile(`^notes\.txt$`),
		regexp.MustCompile(`^Command running in background with ID: bash_\d+$`),
	}
	if len(s.answers) < len(want) {
		t.Fatalf("the model received %d answers:\n%s", len(s.answers), strings.Join(s.answers, "\n---\n"))
	}
	for i, re := range want {
		if !re.MatchString(s.answers[i]) {
			t.Errorf("answer %d = %q, want %s", i, s.answers[i], re)
		}
	}
	rest := strings.Join(s.answers[len(want):], "\n---\n")
	for _, frag := range []string{
		"<status>running</status>", "started-" + marker,
		`"message":"Successfully stopped task: ` + bgID + ` (echo started-` + marker,
		"<status>killed</status>",
		notes, pre,
		pre + ":3:omega", notes + ":2:second line",
		"Todos have been modified successfully.",
	} {
		if !strings.Contains(rest, frag) {
			t.Errorf("no %q in the later answers:\n%s", frag, rest)
		}
	}
	if left := markedPIDs(marker); len(left) != 0 {
		t.Errorf("TaskStop left the background command running: %v", left)
	}
	offered := s.tools[0]
	wantTools := []string{"Bash", "BashOutput", "TaskStop", "Read", "Write", "Edit", "MultiEdit", "Glob", "Grep", "TodoWrite"}
	for _, n := range wantTools {
		if !slices.Contains(offered, n) {
			t.Errorf("the Claude model was not offered %s: %v", n, offered)
		}
	}
	for _, n := range []string{"exec_command", "write_stdin", "apply_patch", "read_file", "list_dir", "grep_files", "update_plan", "view_image", "request_user_input", "LS", "KillShell"} {
		if slices.Contains(offered, n) {
			t.Errorf("the Claude model was offered %s: %v", n, offered)
		}
	}
}

// TestToolSetFollowsEachAgentsModel: a GPT root is offered Codex's tools
// and none of Claude Code's; the Claude sub-agent it spawns is offered
// Claude Code's and none of Codex's; tool_family=codex gives a Claude
// model Codex's tools.
func TestToolSetFollowsEachAgentsModel(t *testing.T) {
	needBinary(t)
	codexSet := []string{"exec_command", "apply_patch", "update_plan"}
	claudeSet := []string{"Bash", "BashOutput", "TaskStop", "Read", "Write", "Edit", "MultiEdit", "Glob", "Grep", "TodoWrite"}
	offered := func(r modeltest.CapturedRequest) []string {
		return r.ToolNames()
	}
	check := func(who string, got, want, not []string) {
		t.Helper()
		for _, n := range want {
			if !slices.Contains(got, n) {
				t.Errorf("%s was not offered %s: %v", who, n, got)
			}
		}
		for _, n := range not {
			if slices.Contains(got, n) {
				t.Errorf("%s was offered %s: %v", who, n, got)
			}
		}
	}
	srv := modeltest.NewServer(t)
	srv.SetModels([]string{"gpt-5", "claude-sonnet-4-5"})
	srv.Handle(func(r modeltest.CapturedRequest) modeltest.Reply {
		cr := parseChat(r)
		if strings.Contains(cr.firstUser, "review it") {
			return modeltest.Reply{Text: "reviewed"}
		}
		if len(cr.outputs) == 0 {
			return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "s1", Name: "spawn_agent", Arguments: `{"message":"review it","model":"claude-sonnet-4-5"}`}}}
		}
		if len(cr.outputs) == 1 {
			var sp struct {
				AgentID string `json:"agent_id"`
			}
			_ = json.Unmarshal([]byte(cr.outputs["s1"]), &sp)
			return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "w1", Name: "wait", Arguments: `{"ids":["` + sp.AgentID + `"]}`}}}
		}
		return modeltest.Reply{Text: "done"}
	})
	home := t.TempDir()
	p := startGrove(t, providerEnv(home, srv.URL()), "exec", "--cd", t.TempDir(), "-m", "gpt-5", "--approve-workdirs", "delegate")
	if code, _ := p.waitExit(t, time.Now()); code != 0 {
		t.Fatalf("exit %d\n%s", code, p.stderr.String())
	}
	var root, child []string
	for _, r := range srv.Requests() {
		if requestModel := fmt.Sprint(r.Body["model"]); strings.Contains(requestModel, "claude") {
			child = offered(r)
		} else if root == nil {
			root = offered(r)
		}
	}
	codexOnly := append([]string{"write_stdin", "view_image", "read_file", "list_dir", "grep_files"}, codexSet...)
	check("the GPT root", root, codexSet, claudeSet)
	check("the Claude sub-agent", child, claudeSet, codexOnly)

	forced := modeltest.NewServer(t)
	forced.Enqueue(modeltest.Reply{Text: "ok"})
	p = startGrove(t, providerEnv(t.TempDir(), forced.URL()), "exec", "--cd", t.TempDir(), "-m", "claude-sonnet-4-5", "-c", "tool_family=codex", "hi")
	if code, _ := p.waitExit(t, time.Now()); code != 0 {
		t.Fatalf("exit %d\n%s", code, p.stderr.String())
	}
	check("a Claude model under tool_family=codex", offered(forced.Requests()[0]), codexSet, claudeSet)
}
