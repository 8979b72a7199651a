package engine

import (
	"context"
	"os"
	"slices"
	"testing"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

// TestRewindSessionCutsBeforeTheChosenUserMessage: the TUI's Esc-Esc
// backtrack (Codex codex-rs/tui/src/app_backtrack.rs: fork the
// conversation minus the last N user messages, prefill the N-th): a
// second engine, as the TUI opens one, rewinds two user messages back
// while the source is still open. The fork's history ends with the answer
// before "second", the cut text is returned, the fork is recorded so, and
// the source session's rollout is byte for byte what it was.
func TestRewindSessionCutsBeforeTheChosenUserMessage(t *testing.T) {
	s := script{"root": func(ctx context.Context, tn turn) (model.Response, error) {
		return text(tn.prompt + " answer"), nil
	}}
	env := newEnv(t, s, nil)
	for i, p := range []string{"first", "second", "third"} {
		env.send(p)
		env.rootFinal(i + 1)
	}
	entry, err := rollout.FindSession(env.home, string(env.root))
	if err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(entry.RolloutPath)
	if err != nil {
		t.Fatal(err)
	}
	e2, _ := env.openBeside()
	if _, _, err := e2.RewindSession(string(env.root), 4); err == nil {
		t.Fatal("rewinding past the first user message succeeded")
	}
	fork, cut, err := e2.RewindSession(string(env.root), 2)
	if err != nil {
		t.Fatal(err)
	}
	if fork == env.root || cut != "second" {
		t.Fatalf("fork %s cut %q, want a new session and %q", fork, cut, "second")
	}
	want := []string{"first", "first answer"}
	if got := messages(e2.History(fork)); !slices.Equal(got, want) {
		t.Fatalf("fork history %q, want %q", got, want)
	}
	fe, err := rollout.FindSession(env.home, string(fork))
	if err != nil {
		t.Fatal(err)
	}
	fs, err := rollout.Read(fe.RolloutPath)
	if err != nil {
		t.Fatal(err)
	}
	if got := messages(fs.Items); !slices.Equal(got, want) {
		t.Fatalf("fork rollout %q, want %q", got, want)
	}
	if th := e2.Threads(); len(th) != 1 || th[0].ID != fork {
		t.Fatalf("fork threads %+v, want its root alone", th)
	}
	if after, _ := os.ReadFile(entry.RolloutPath); string(after) != string(before) {
		t.Fatal("the rewind wrote into the source session's rollout")
	}
	if got := messages(env.e.History(env.root)); len(got) != 6 || got[4] != "third" {
		t.Fatalf("source history %q", got)
	}
}

// messages are the user and assistant texts of items, in order.
func messages(items []protocol.Item) []string {
	var out []string
	for _, it := range items {
		if it.Type == protocol.ItemMessage && !it.IsGroveNotice() {
			out = append(out, it.Content)
		}
	}
	return out
}
