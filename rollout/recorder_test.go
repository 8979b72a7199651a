package rollout

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/grovecli/grove/protocol"
)

func TestRoundTrip(t *testing.T) {
	home := t.TempDir()
	meta := SessionMeta{
		ID: "t1", ParentID: "p0", Depth: 1, Source: protocol.SourceSpawned, AgentType: "worker", AgentName: "ada",
		Model: "m", Provider: "openai", ReasoningEffort: "high", Cwd: "/w",
		Sandbox:        protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite, WritableRoots: []string{"/tmp/x"}},
		ApprovalPolicy: protocol.ApprovalOnRequest, SpawnCallID: "call_1", Note: "n0", ThreadName: "name",
		Instructions: "be brief", AllowList: []string{"read_file"}, DenyList: []string{"exec_*"}, Timestamp: t0,
	}
	r, err := Create(home, meta)
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(home, "sessions", "2026", "11", "23", "rollout-2026-11-23T10-00-00-t1.jsonl")
	if r.Path() != want {
		t.Fatalf("path %s, want %s", r.Path(), want)
	}
	note := "a note"
	st := protocol.Completed("done", true)
	tc := TurnContext{TurnID: "u1", Model: "m", ReasoningEffort: "low", Cwd: "/w", Sandbox: protocol.SandboxPolicy{Mode: protocol.SandboxReadOnly}, ApprovalPolicy: protocol.ApprovalNever}
	items := []protocol.Item{protocol.UserMessage("hi <&> \"quoted\"\nline"), protocol.FunctionCall("c1", "exec_command", `{"cmd":"ls"}`), protocol.FunctionCallOutput("c1", "ok"), protocol.AssistantMessage("hello")}
	must(t, r.AppendItem(items[0]))
	must(t, r.AppendTurnContext(tc))
	must(t, r.AppendItem(items[1]))
	must(t, r.AppendItem(items[2]))
	must(t, r.AppendEvent(protocol.Event{Type: protocol.EventNoteUpdated, ThreadID: "t1", Note: &note}))
	must(t, r.AppendEvent(protocol.Event{Type: protocol.EventStatusChanged, ThreadID: "t1", Status: &st}))
	must(t, r.AppendItem(items[3]))
	must(t, r.Flush())

	// Flushed lines are readable while the recorder is still open.
	s, err := Read(r.Path())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s.Meta, meta) {
		t.Errorf("meta\n got %+v\nwant %+v", s.Meta, meta)
	}
	if !reflect.DeepEqual(s.Items, items) {
		t.Errorf("items\n got %+v\nwant %+v", s.Items, items)
	}
	if !reflect.DeepEqual(s.TurnContexts, []TurnContext{tc}) {
		t.Errorf("turn contexts %+v", s.TurnContexts)
	}
	if len(s.Events) != 2 || !s.NoteSet || s.Note != note || s.LastStatus == nil || *s.LastStatus != st || len(s.Warnings) != 0 {
		t.Errorf("events %+v note %q/%v status %v warnings %v", s.Events, s.Note, s.NoteSet, s.LastStatus, s.Warnings)
	}
	must(t, r.Close())
	must(t, r.Close()) // idempotent

	for path, perm := range map[string]os.FileMode{r.Path(): 0o600, filepath.Dir(r.Path()): 0o700, filepath.Join(home, "sessions"): 0o700} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != perm {
			t.Errorf("%s: mode %v, want %v (%v)", path, fi.Mode().Perm(), perm, err)
		}
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestCreateDefaultsTimestampToNow(t *testing.T) {
	before := time.Now().UTC().Truncate(time.Second)
	r, err := Create(t.TempDir(), SessionMeta{ID: "now"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s, err := Read(r.Path())
	if err != nil || s.Meta.Timestamp.Before(before) {
		t.Fatalf("meta timestamp %v (before %v): %v", s.Meta.Timestamp, before, err)
	}
	ts := s.Meta.Timestamp.UTC()
	if !strings.HasSuffix(r.Path(), filepath.Join(ts.Format("2006"), ts.Format("01"), ts.Format("02"), "rollout-"+ts.Format("2006-01-02T15-04-05")+"-now.jsonl")) {
		t.Fatalf("path %s does not follow the meta timestamp %v", r.Path(), ts)
	}
}

func TestCreateRejects(t *testing.T) {
	home := t.TempDir()
	existing := newRec(t, home, "dup")
	must(t, existing.Close())
	for _, tc := range []struct {
		id   protocol.ThreadID
		want string
	}{
		{"", "no id"},
		{"a/b", "file name"},
		{`a\b`, "file name"},
		{"..", "file name"},
		{"dup", "exists"}, // same id, same second: never overwrite a rollout
	} {
		_, err := Create(home, testMeta(tc.id))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Create(%q): %v, want error containing %q", tc.id, err, tc.want)
		}
	}
}

func TestRecorderAfterClose(t *testing.T) {
	r := newRec(t, t.TempDir(), "c")
	must(t, r.AppendItem(protocol.UserMessage("x")))
	must(t, r.Sync())
	must(t, r.Close())
	if err := r.AppendItem(protocol.UserMessage("late")); err == nil || !strings.Contains(err.Error(), "after close") {
		t.Errorf("append after close: %v", err)
	}
	if err := r.Sync(); err == nil {
		t.Error("sync after close succeeded")
	}
	must(t, r.Flush()) // nothing pending
	s, err := Read(r.Path())
	if err != nil || len(s.Items) != 1 {
		t.Fatalf("%+v %v", s, err)
	}
}

func TestTornLastLineThenResume(t *testing.T) {
	r := newRec(t, t.TempDir(), "t2")
	must(t, r.AppendItem(protocol.UserMessage("one")))
	must(t, r.Close())
	// kill -9 in the middle of a write.
	appendRaw(t, r.Path(), `{"timestamp":"2026-11-23T10:00:01Z","type":"response_item","payload":{"type":"mess`)

	s, err := Read(r.Path())
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Items) != 1 || len(s.Warnings) != 1 || !strings.HasPrefix(s.Warnings[0], r.Path()+":3: skipped unreadable line (") {
		t.Fatalf("items %d warnings %q", len(s.Items), s.Warnings)
	}

	r2, err := OpenAppend(r.Path())
	if err != nil {
		t.Fatal(err)
	}
	must(t, r2.AppendItem(protocol.UserMessage("two")))
	must(t, r2.Close())
	s, err = Read(r.Path())
	if err != nil || len(s.Items) != 2 || s.Items[1].Content != "two" || len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], ":3:") {
		t.Fatalf("after resume: items %+v warnings %q err %v", s.Items, s.Warnings, err)
	}
}

func TestOpenAppendCleanFileAddsNoBlankLine(t *testing.T) {
	r := newRec(t, t.TempDir(), "t3")
	must(t, r.Close())
	r2, err := OpenAppend(r.Path())
	if err != nil {
		t.Fatal(err)
	}
	must(t, r2.AppendItem(protocol.UserMessage("more")))
	must(t, r2.Close())
	b, _ := os.ReadFile(r.Path())
	if n := strings.Count(string(b), "\n"); n != 2 || strings.Contains(string(b), "\n\n") {
		t.Fatalf("file:\n%s", b)
	}
	if _, err := OpenAppend(filepath.Join(t.TempDir(), "missing.jsonl")); err == nil {
		t.Fatal("OpenAppend of a missing file succeeded")
	}
}

// TestConcurrentRecorder: many goroutines append and flush; every line is
// intact, each goroutine's lines keep their order, timestamps follow lines.
func TestConcurrentRecorder(t *testing.T) {
	const goroutines, perG = 8, 200
	r := newRec(t, t.TempDir(), "t4")
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range perG {
				if err := r.AppendItem(protocol.UserMessage(fmt.Sprintf("g%d-%d %s", g, i, strings.Repeat("x", i)))); err != nil {
					t.Error(err)
				}
				if i%10 == 0 {
					if err := r.Flush(); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
	wg.Wait()
	must(t, r.Close())
	s, err := Read(r.Path())
	if err != nil || len(s.Items) != goroutines*perG || len(s.Warnings) != 0 {
		t.Fatalf("items %d warnings %v err %v", len(s.Items), s.Warnings, err)
	}
	next := make([]int, goroutines)
	for _, it := range s.Items {
		var g, i int
		if _, err := fmt.Sscanf(it.Content, "g%d-%d", &g, &i); err != nil || i != next[g] {
			t.Fatalf("item %q out of order (want g%d-%d)", it.Content, g, next[g])
		}
		next[g]++
	}
	var prev time.Time
	must(t, scanFile(r.Path(), func(l Line) {
		if l.Timestamp.Before(prev) {
			t.Fatalf("timestamp %v after %v", l.Timestamp, prev)
		}
		prev = l.Timestamp
	}))
}

func scanFile(path string, fn func(Line)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var bad error
	err = scanLines(f, func(n int, b []byte) {
		var l Line
		if err := json.Unmarshal(b, &l); err != nil && bad == nil {
			bad = fmt.Errorf("line %d: %v", n, err)
		}
		fn(l)
	})
	if err != nil {
		return err
	}
	return bad
}

// TestFlushErrorKeepsLines: a failed write reports the file and keeps the
// unwritten lines for the next flush instead of dropping them silently.
func TestFlushErrorKeepsLines(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	r, err := OpenAppend("/dev/full")
	if err != nil {
		t.Skip(err)
	}
	if err := r.AppendItem(protocol.UserMessage("x")); err == nil || !strings.Contains(err.Error(), "/dev/full: write") {
		t.Fatalf("append to a full disk: %v", err)
	}
	for range 2 {
		if err := r.Flush(); err == nil || !strings.Contains(err.Error(), "/dev/full: write") {
			t.Fatalf("flush to a full disk: %v", err)
		}
	}
	if err := r.Close(); err == nil {
		t.Fatal("close with unwritten lines reported no error")
	}
	must(t, r.Close())
}

// TestAppendIsOnDiskAtOnce: every line reaches the file when it is
// appended, without Flush, so a kill -9 mid-turn keeps the turn so far; a
// torn tail left by the killed writer is sealed by the next line.
func TestAppendIsOnDiskAtOnce(t *testing.T) {
	r := newRec(t, t.TempDir(), "live")
	items := []protocol.Item{protocol.UserMessage("go"), protocol.FunctionCall("c1", "exec_command", `{"cmd":"ls"}`)}
	for i, it := range items {
		must(t, r.AppendItem(it))
		s, err := Read(r.Path())
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(s.Items, items[:i+1]) {
			t.Fatalf("after %d appends the file holds %+v", i+1, s.Items)
		}
	}
	// The writer dies mid-line (its lock goes with it); a resumed writer
	// starts on a fresh line.
	must(t, r.Close())
	appendRaw(t, r.Path(), `{"timestamp":"2026-11-23T10:00:01Z","type":"respo`)
	r2, err := OpenAppend(r.Path())
	if err != nil {
		t.Fatal(err)
	}
	out := protocol.FunctionCallOutput("c1", "aborted")
	must(t, r2.AppendItem(out))
	s, err := Read(r.Path())
	if err != nil {
		t.Fatal(err)
	}
	if want := append(items, out); !reflect.DeepEqual(s.Items, want) || len(s.Warnings) != 1 {
		t.Fatalf("items %+v warnings %q", s.Items, s.Warnings)
	}
	must(t, r2.Close())
}
