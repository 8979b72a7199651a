package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/testkit"
)

func runnerFor(t *testing.T, hooksJSON string, env func() []string) (*Runner, string) {
	t.Helper()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "hooks.json"), []byte(hooksJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	set := Discover(Locations{Cwd: home, GroveHome: home}, State{})
	if len(set.Warnings) > 0 {
		t.Fatal(set.Warnings)
	}
	r := NewRunner(set.Active(true), Options{Env: env, ProjectDir: home})
	t.Cleanup(r.Close)
	return r, home
}

func bash(t *testing.T) Tool {
	return ToolFor("exec_command", "c1", json.RawMessage(`{"cmd":"true"}`))
}

// Matching hooks run concurrently: each waits for the other's marker, so
// run one after the other they would both fail.
func TestMatchingHooksRunConcurrently(t *testing.T) {
	wait := func(mine, other string) string {
		return `touch ` + mine + `; i=0; while [ ! -f ` + other + ` ]; do i=$((i+1)); [ $i -gt 1000 ] && exit 1; sleep 0.01; done`
	}
	js := `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"` + wait("a", "b") + `"}]},
		{"hooks":[{"type":"command","command":"` + wait("b", "a") + `"}]}]}}`
	r, home := runnerFor(t, js, testEnv)
	o := r.PreToolUse(context.Background(), testContext(home), bash(t))
	if o.Ran != 2 || len(o.Notes) != 0 {
		t.Fatalf("outcome %+v", o)
	}
}

// A hook past its timeout is killed with what it started, and said so.
// The child is found by its command line: in its own PID namespace the
// hook's `$!` is not a pid of this one.
func TestTimeoutKillsProcessGroup(t *testing.T) {
	js := `{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","timeout":1,"command":"sleep 6011 & touch started; wait"}]}]}}`
	r, home := runnerFor(t, js, testEnv)
	o := r.PreToolUse(context.Background(), testContext(home), bash(t))
	if o.Block || len(o.Notes) != 1 || !strings.Contains(o.Notes[0], "hook timed out after 1s") {
		t.Fatalf("outcome %+v", o)
	}
	if _, err := os.Stat(filepath.Join(home, "started")); err != nil {
		t.Fatal("the hook never started its child")
	}
	waitGone(t, "sleep\x006011")
}

// waitGone waits until no process's command line holds tok (its
// arguments joined by NUL).
func waitGone(t *testing.T, tok string) {
	t.Helper()
	testkit.Eventually(t, fmt.Sprintf("no process running %q", tok), func() bool { return len(processesWith(tok)) == 0 },
		func() string { return fmt.Sprint("still running: ", processesWith(tok)) })
}

// processesWith lists the pids (of this PID namespace) whose command line
// holds tok and that are not zombies.
func processesWith(tok string) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cl, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !strings.Contains(string(cl)+"\x00", tok+"\x00") {
			continue
		}
		if st, _ := os.ReadFile("/proc/" + e.Name() + "/stat"); strings.Contains(string(st), ") Z ") {
			continue
		}
		out = append(out, pid)
	}
	return out
}

// Interrupting the turn cancels its hooks.
func TestCancelStopsHook(t *testing.T) {
	js := `{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"touch started; sleep 60"}]}]}}`
	r, home := runnerFor(t, js, testEnv)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan Outcome)
	go func() { done <- r.PreToolUse(ctx, testContext(home), bash(t)) }()
	testkit.Eventually(t, "the hook to start", func() bool {
		_, err := os.Stat(filepath.Join(home, "started"))
		return err == nil
	})
	cancel()
	o := <-done
	if len(o.Notes) != 1 || !strings.Contains(o.Notes[0], "cancelled") {
		t.Fatalf("outcome %+v", o)
	}
}

// Output is bounded: a hook writing 1 MiB of reason is cut to MaxOutput.
func TestOutputBounded(t *testing.T) {
	js := `{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"head -c 1048576 /dev/zero | tr '\\\\0' x >&2; exit 2"}]}]}}`
	r, home := runnerFor(t, js, testEnv)
	o := r.PreToolUse(context.Background(), testContext(home), bash(t))
	if !o.Block {
		t.Fatalf("outcome notes %v", o.Notes)
	}
	if len(o.Reason) > MaxOutput+100 || !strings.Contains(o.Reason, "[hook output truncated: 983040 bytes dropped]") {
		t.Errorf("reason is %d bytes, ends %q", len(o.Reason), o.Reason[len(o.Reason)-60:])
	}
}

// Hooks get the scrubbed environment they are given plus the protocol's
// variables, never grove's own secrets.
func TestEnvironmentScrubbed(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-test-secret-value")
	js := `{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"env > env.txt"}]}]}}`
	r, home := runnerFor(t, js, testEnv)
	r.PreToolUse(context.Background(), testContext(home), bash(t))
	b, err := os.ReadFile(filepath.Join(home, "env.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "sk-test-secret-value") {
		t.Error("a hook saw OPENAI_API_KEY")
	}
	if !strings.Contains(string(b), "CLAUDE_PROJECT_DIR="+home) {
		t.Errorf("CLAUDE_PROJECT_DIR missing:\n%s", b)
	}
}

// JSON decisions: deny with a reason blocks; deny without one, an
// unknown exit code and invalid JSON are notes, never a silent pass.
func TestJSONDecisions(t *testing.T) {
	cases := []struct {
		out       string
		block     bool
		reason    string
		noteHas   string
		updateHas string
	}{
		{`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"not on main"}}`, true, "not on main", "", ""},
		{`{"decision":"block","reason":"legacy form"}`, true, "legacy form", "", ""},
		{`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}`, false, "", "without a non-empty permissionDecisionReason", ""},
		{`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"ls -la"}}}`, false, "", "", "ls -la"},
		{`{not json`, false, "", "invalid JSON output", ""},
		{`{"systemMessage":"careful"}`, false, "", "careful", ""},
	}
	for _, c := range cases {
		js, _ := json.Marshal(map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{
			"hooks": []any{map[string]any{"type": "command", "command": "cat >/dev/null; printf '%s' '" + c.out + "'"}}}}}})
		r, home := runnerFor(t, string(js), testEnv)
		o := r.PreToolUse(context.Background(), testContext(home), bash(t))
		notes := strings.Join(o.Notes, "\n")
		if o.Block != c.block || o.Reason != c.reason || (c.noteHas != "" && !strings.Contains(notes, c.noteHas)) ||
			(c.noteHas == "" && notes != "") || !strings.Contains(string(o.UpdatedInput), c.updateHas) {
			t.Errorf("%s:\n got %+v", c.out, o)
		}
	}
}
