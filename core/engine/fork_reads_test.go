package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/tools"
	"github.com/grovecli/grove/protocol"
)

// readsScript is a Claude-tools root: "read a" and "read b" Read that
// file, "edit a" and "edit b" Edit it; each turn ends with a text.
func readsScript(cwd string) script {
	p := func(n string) string { return filepath.Join(cwd, n+".txt") }
	return script{"root": func(_ context.Context, tn turn) (model.Response, error) {
		verb, file, _ := strings.Cut(tn.prompt, " ")
		if tn.rounds > 0 {
			return text(tn.prompt + " done"), nil
		}
		switch verb {
		case "read":
			return calls(toolCall("read-"+file, tools.ClaudeRead, map[string]any{"file_path": p(file)})), nil
		case "edit":
			return calls(toolCall("edit-"+file, tools.ClaudeEdit, map[string]any{"file_path": p(file), "old_string": "old", "new_string": "new"})), nil
		}
		return text("?"), nil
	}}
}

// claudeReadsEnv is a session of Claude's tools over a.txt and b.txt.
func claudeReadsEnv(t *testing.T) *testEnv {
	t.Helper()
	var cwd string
	env := newEnv(t, nil, func(o *Options) {
		cwd = o.Cwd
		o.Client = model.NewScripted("test", readsScript(o.Cwd).fn())
		o.ToolConfig.Family = tools.FamilyClaude
	})
	for _, n := range []string{"a.txt", "b.txt"} {
		if err := os.WriteFile(filepath.Join(cwd, n), []byte("old\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return env
}

// editOutput sends "edit <file>" to thread id of env and returns what the
// Edit answered.
func (env *testEnv) editOutput(id protocol.ThreadID, file string) string {
	env.t.Helper()
	if err := env.e.SubmitText(id, "edit "+file); err != nil {
		env.t.Fatal(err)
	}
	ev := env.waitFor("the Edit of "+file, func(ev protocol.Event) bool {
		return ev.ThreadID == id && ev.Type == protocol.EventToolCallEnd && ev.Tool != nil && ev.Tool.CallID == "edit-"+file
	})
	env.waitFor("the end of the edit turn", func(ev protocol.Event) bool {
		m, err := ev.Msg()
		am, ok := m.(protocol.AgentMessageMsg)
		return err == nil && ok && ev.ThreadID == id && am.Text == "edit "+file+" done"
	})
	return ev.Tool.Output
}

const (
	editedPrefix = "The file "
	notReadYet   = "File has not been read yet. Read it first before writing to it."
)

// TestForkKeepsClaudeReads: a fork continues with what its source Read,
// as a resume does (Claude Code rebuilds its read-file state from the
// transcript it continues): in the fork, an Edit of a file the source
// Read applies. The fork's rollout carries the source's calls, so a
// resume of the fork in a later grove may edit the other file it never
// touched itself. The source's later reads (after the fork) do not reach
// the fork.
func TestForkKeepsClaudeReads(t *testing.T) {
	env := claudeReadsEnv(t)
	env.send("read a")
	env.rootFinal(1)
	env.send("read b")
	env.rootFinal(2)
	e2, env2 := env.openBeside()
	fork, err := e2.ForkSession(string(env.root))
	if err != nil {
		t.Fatal(err)
	}
	if out := env2.editOutput(fork, "a"); !strings.HasPrefix(out, editedPrefix) {
		t.Fatalf("Edit of a in the fork answered %q, want %q…", out, editedPrefix)
	}
	if err := e2.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	e3, env3 := env.openBeside()
	if _, err := e3.ResumeSession(string(fork)); err != nil {
		t.Fatal(err)
	}
	if out := env3.editOutput(fork, "b"); !strings.HasPrefix(out, editedPrefix) {
		t.Fatalf("Edit of b in the resumed fork answered %q, want %q…", out, editedPrefix)
	}
	for _, n := range []string{"a.txt", "b.txt"} {
		if b, _ := os.ReadFile(filepath.Join(env.cwd, n)); string(b) != "new\n" {
			t.Errorf("%s = %q after the edits", n, b)
		}
	}
}

// TestRewindDropsClaudeReadsAfterTheCut: a rewind to before "read b" (the
// TUI's Esc-Esc) keeps the read of a and not that of b, whose call the
// cut removed: the fork may Edit a, and its Edit of b is refused as
// Claude Code refuses a file not read, leaving b as it was.
func TestRewindDropsClaudeReadsAfterTheCut(t *testing.T) {
	env := claudeReadsEnv(t)
	env.send("read a")
	env.rootFinal(1)
	env.send("read b")
	env.rootFinal(2)
	e2, env2 := env.openBeside()
	fork, cut, err := e2.RewindSession(string(env.root), 1)
	if err != nil || cut != "read b" {
		t.Fatalf("rewind: %q, %v", cut, err)
	}
	if out := env2.editOutput(fork, "b"); out != notReadYet {
		t.Fatalf("Edit of b (read after the cut) answered %q, want %q", out, notReadYet)
	}
	if out := env2.editOutput(fork, "a"); !strings.HasPrefix(out, editedPrefix) {
		t.Fatalf("Edit of a (read before the cut) answered %q, want %q…", out, editedPrefix)
	}
	for n, want := range map[string]string{"a.txt": "new\n", "b.txt": "old\n"} {
		if b, _ := os.ReadFile(filepath.Join(env.cwd, n)); string(b) != want {
			t.Errorf("%s = %q, want %q", n, b, want)
		}
	}
}
