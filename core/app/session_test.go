package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/grovecli/grove/core/config"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/sandbox"
	"github.com/grovecli/grove/protocol"
)

func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	goleak.VerifyTestMain(m)
}

// isolate keeps the user's hooks, skills, Codex config and temp dir out.
func isolate(t *testing.T) {
	t.Helper()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("CODEX_HOME", t.TempDir())
	t.Setenv("GROVE_SYSTEM_CONFIG_DIR", t.TempDir())
	t.Setenv("TMPDIR", t.TempDir())
}

// testOptions are a session on a scripted model that answers "ok", with a
// scratch directory the session owns.
func testOptions(t *testing.T) Options {
	t.Helper()
	cfg := &config.Config{Home: t.TempDir()}
	scratch := t.TempDir()
	client := model.NewScripted("scripted", func(context.Context, model.Request) (model.Response, error) {
		return model.Response{Text: "ok"}, nil
	})
	return Options{Config: cfg, Provider: config.Resolved{Name: "scripted", Model: "m"}, Client: client, Cwd: t.TempDir(), Scratch: scratch}
}

// tracker records the directories the session tells the process about.
type tracker struct{ tracked, removed []string }

func (d *tracker) Track(dir string) { d.tracked = append(d.tracked, dir) }
func (d *tracker) Remove(dir string) {
	d.removed = append(d.removed, dir)
	_ = os.RemoveAll(dir)
}

// An error half way through Open (here: the host does not exist, after
// the session's files, hooks and skills were made) releases what was
// built through Close: the ephemeral home and the scratch project are
// removed, and goleak (TestMain) finds no goroutine left.
func TestOpenFailureReleasesWhatItBuilt(t *testing.T) {
	isolate(t)
	o := testOptions(t)
	o.Ephemeral, o.Host = true, "nosuch"
	dirs := &tracker{}
	o.Dirs = dirs
	s, err := Open(context.Background(), o)
	if err == nil || s != nil || !strings.Contains(err.Error(), "nosuch") {
		t.Fatalf("Open = %v, %v; want the unknown host named", s, err)
	}
	if len(dirs.tracked) != 1 || !strings.Contains(filepath.Base(dirs.tracked[0]), "grove-ephemeral-") {
		t.Fatalf("tracked %q, want the ephemeral home", dirs.tracked)
	}
	for _, dir := range []string{o.Scratch, dirs.tracked[0]} {
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("%s still there after the failed Open (%v)", dir, err)
		}
	}
}

// Open starts the root with the subscription taken first; a turn runs;
// Close ends the engine, closes Events once read, removes the scratch
// project, and a second Close returns the first one's result.
func TestOpenTurnClose(t *testing.T) {
	isolate(t)
	o := testOptions(t)
	o.Start.Subscribe = true
	s, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if s.Root() == "" || s.Engine().RootID() != s.Root() {
		t.Fatalf("root %q, engine's %q", s.Root(), s.Engine().RootID())
	}
	if err := s.Turn(Turn{Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	sawStart, done := false, false
	for ev := range s.Events() {
		sawStart = sawStart || ev.Type == protocol.EventThreadStarted
		if ev.Type == protocol.EventTurnCompleted && ev.ThreadID == s.Root() {
			done = true
			break
		}
	}
	if !sawStart || !done {
		t.Fatalf("thread_started seen %v, turn completed %v", sawStart, done)
	}
	closed := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		closed <- s.Close(ctx)
	}()
	for range s.Events() { // the last events, then the channel closes
	}
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	if err := s.Close(context.Background()); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := os.Stat(o.Scratch); !os.IsNotExist(err) {
		t.Fatalf("scratch project still there: %v", err)
	}
}

// A front end that subscribed and stopped reading does not hold Close
// past its ctx: the rest of the events is dropped.
func TestCloseDoesNotWaitPastCtxForAReader(t *testing.T) {
	isolate(t)
	o := testOptions(t)
	o.Start.Subscribe = true
	s, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_ = s.Close(ctx)
	for range s.Events() { // closed: the relay ended
	}
}

// Resuming a session that is not there fails with the engine's words and
// leaves nothing open.
func TestResumeUnknownSessionFails(t *testing.T) {
	isolate(t)
	if _, err := Resume(context.Background(), testOptions(t), "no-such-session"); err == nil {
		t.Fatal("Resume of an unknown session succeeded")
	}
	if _, err := Open(context.Background(), Options{Config: &config.Config{Home: t.TempDir()}, Client: model.NewScripted("s", nil), Cwd: t.TempDir(), Start: Start{Fork: true}}); err == nil || !strings.Contains(err.Error(), "--fork needs a session") {
		t.Fatalf("fork without a session: %v", err)
	}
}

// Every front end's per-turn settings are judged here: what grove cannot
// honour is refused, naming the field, before a turn runs.
func TestCheckTurnSettings(t *testing.T) {
	for _, c := range []struct {
		o    protocol.TurnOverrides
		want string
	}{
		{protocol.TurnOverrides{Cwd: "/abs", Model: "m", ReasoningEffort: "high", ReasoningSummary: "auto", ApprovalPolicy: protocol.ApprovalNever}, ""},
		{protocol.TurnOverrides{Cwd: "rel"}, `cwd: "rel" is not an absolute path`},
		{protocol.TurnOverrides{ReasoningEffort: "max"}, `effort: unknown value "max"`},
		{protocol.TurnOverrides{ReasoningSummary: "long"}, `summary: unknown value "long"`},
		{protocol.TurnOverrides{ApprovalPolicy: "sometimes"}, `approvalPolicy: unknown policy "sometimes"`},
		{protocol.TurnOverrides{Sandbox: &protocol.SandboxPolicy{Mode: "open"}}, `sandbox: unknown mode "open"`},
		{protocol.TurnOverrides{Sandbox: &protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite, WritableRoots: []string{"x"}}}, `writableRoots: "x" is not an absolute path`},
		{protocol.TurnOverrides{OutputSchema: json.RawMessage(`[1]`)}, `outputSchema: not a JSON Schema object`},
		{protocol.TurnOverrides{OutputSchema: json.RawMessage(`{"type":"object"}`)}, ""},
	} {
		err := CheckTurnSettings(&c.o)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%+v: %v", c.o, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%+v: %v, want %q", c.o, err, c.want)
		}
	}
	if CheckTurnSettings(nil) != nil {
		t.Error("nil settings refused")
	}
}
