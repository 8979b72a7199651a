package rollout

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/grovecli/grove/protocol"
)

func newRec(t testing.TB, home string, id protocol.ThreadID) *Recorder {
	t.Helper()
	r, err := Create(home, SessionMeta{ID: id, Model: "m", Cwd: "/w", Timestamp: time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRoundTrip(t *testing.T) {
	home := t.TempDir()
	r := newRec(t, home, "t1")
	if !strings.Contains(r.Path(), filepath.Join("sessions", "2026", "11", "23", "rollout-2026-11-23T10-00-00-t1.jsonl")) {
		t.Fatalf("path %s", r.Path())
	}
	_ = r.AppendItem(protocol.UserMessage("hi"))
	note := "a note"
	st := protocol.Completed("done", true)
	_ = r.AppendEvent(protocol.Event{Type: protocol.EventNoteUpdated, ThreadID: "t1", Note: &note})
	_ = r.AppendEvent(protocol.Event{Type: protocol.EventStatusChanged, ThreadID: "t1", Status: &st})
	_ = r.AppendTurnContext(TurnContext{TurnID: "u1", Model: "m"})
	_ = r.AppendItem(protocol.AssistantMessage("hello"))
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal("second close:", err)
	}
	s, err := Read(r.Path())
	if err != nil {
		t.Fatal(err)
	}
	if s.Meta.ID != "t1" || len(s.Items) != 2 || s.Items[1].Content != "hello" || !s.NoteSet || s.Note != "a note" || s.LastStatus.Message != "done" || len(s.TurnContexts) != 1 || len(s.Warnings) != 0 {
		t.Fatalf("session %+v", s)
	}
	if fi, _ := os.Stat(r.Path()); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode())
	}
}

func TestTornLastLineIsSkippedAndAppendContinuesCleanly(t *testing.T) {
	home := t.TempDir()
	r := newRec(t, home, "t2")
	_ = r.AppendItem(protocol.UserMessage("one"))
	_ = r.Close()
	// kill -9 in the middle of a write.
	f, _ := os.OpenFile(r.Path(), os.O_WRONLY|os.O_APPEND, 0)
	_, _ = f.WriteString(`{"timestamp":"2026-11-23T10:00:01Z","type":"response_item","payload":{"type":"mess`)
	_ = f.Close()
	s, err := Read(r.Path())
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Items) != 1 || len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], r.Path()+":3:") {
		t.Fatalf("items %d warnings %v", len(s.Items), s.Warnings)
	}
	r2, err := OpenAppend(r.Path())
	if err != nil {
		t.Fatal(err)
	}
	_ = r2.AppendItem(protocol.UserMessage("two"))
	_ = r2.Close()
	s, err = Read(r.Path())
	if err != nil || len(s.Items) != 2 || s.Items[1].Content != "two" || len(s.Warnings) != 1 {
		t.Fatalf("after resume: %+v %v", s, err)
	}
}

func TestReadErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	_ = os.WriteFile(bad, []byte("not json\n"), 0o600)
	if _, err := Read(bad); err == nil || !strings.Contains(err.Error(), bad) {
		t.Fatalf("bad meta: %v", err)
	}
	if _, err := Read(filepath.Join(dir, "missing.jsonl")); err == nil {
		t.Fatal("missing file")
	}
	empty := filepath.Join(dir, "empty.jsonl")
	_ = os.WriteFile(empty, nil, 0o600)
	if _, err := Read(empty); err == nil || !strings.Contains(err.Error(), "session_meta") {
		t.Fatalf("empty: %v", err)
	}
}

func writeLines(t testing.TB, path string, lines []string, eol string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(strings.Join(lines, eol)+eol), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestReverseScanAcrossBlocks(t *testing.T) {
	for _, eol := range []string{"\n", "\r\n"} {
		dir := t.TempDir()
		path := filepath.Join(dir, "r.jsonl")
		var lines []string
		for i := 0; i < 3000; i++ {
			pad := strings.Repeat("x", i%7*50)
			if i == 1500 {
				pad = strings.Repeat("y", 3*reverseBlock) // longer than a block
			}
			b, _ := json.Marshal(Line{Type: fmt.Sprintf("t%d", i), Payload: json.RawMessage(`"` + pad + `"`)})
			lines = append(lines, string(b))
		}
		lines = append(lines, `{"type":"torn","pay`)
		writeLines(t, path, lines, eol)
		want := 2999
		err := ReverseScan(path, func(l Line) bool {
			if l.Type != fmt.Sprintf("t%d", want) {
				t.Fatalf("got %s want t%d", l.Type, want)
			}
			want--
			return true
		})
		if err != nil || want != -1 {
			t.Fatalf("err %v, stopped at %d", err, want)
		}
		n := 0
		_ = ReverseScan(path, func(Line) bool { n++; return n < 5 })
		if n != 5 {
			t.Fatalf("early stop %d", n)
		}
	}
	empty := filepath.Join(t.TempDir(), "e")
	_ = os.WriteFile(empty, nil, 0o600)
	if err := ReverseScan(empty, func(Line) bool { t.Fatal("line in empty file"); return true }); err != nil {
		t.Fatal(err)
	}
}

func TestLastStatusChange(t *testing.T) {
	r := newRec(t, t.TempDir(), "t3")
	for _, st := range []protocol.AgentStatus{protocol.PendingInit(), protocol.Running(), protocol.Errored("bad")} {
		s := st
		_ = r.AppendEvent(protocol.Event{Type: protocol.EventStatusChanged, Status: &s, Timestamp: time.Unix(100, 0)})
		_ = r.AppendItem(protocol.AssistantMessage("x"))
	}
	_ = r.Close()
	st, at, ok, err := LastStatusChange(r.Path())
	if err != nil || !ok || st.Kind != protocol.StatusErrored || st.Message != "bad" || !at.Equal(time.Unix(100, 0)) {
		t.Fatalf("%v %v %v %v", st, at, ok, err)
	}
}

func TestIndexListingFindAndChildren(t *testing.T) {
	home := t.TempDir()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	add := func(id, parent string, i int) {
		if err := AppendIndex(home, IndexEntry{ID: protocol.ThreadID(id), ParentID: protocol.ThreadID(parent), UpdatedAt: base.Add(time.Duration(i) * time.Minute), FirstPrompt: strings.Repeat("p", 300), RolloutPath: "/r/" + id}); err != nil {
			t.Fatal(err)
		}
	}
	add("aaa1", "", 1)
	add("bbb2", "", 2)
	add("ccc3", "aaa1", 3) // child: not listed
	add("aaa1", "", 4)     // aaa1 updated: newest again
	add("ddd4", "", 5)
	f, _ := os.OpenFile(filepath.Join(home, IndexFile), os.O_APPEND|os.O_WRONLY, 0)
	_, _ = f.WriteString(`{"id":"torn`)
	_ = f.Close()
	got, more, err := ListSessions(home, 0, 2)
	if err != nil || !more || len(got) != 2 || got[0].ID != "ddd4" || got[1].ID != "aaa1" {
		t.Fatalf("page 1: %+v %v %v", got, more, err)
	}
	if len([]rune(got[0].FirstPrompt)) != maxFirstPrompt+1 {
		t.Fatal("first prompt not truncated")
	}
	got, more, _ = ListSessions(home, 2, 2)
	if more || len(got) != 1 || got[0].ID != "bbb2" {
		t.Fatalf("page 2: %+v %v", got, more)
	}
	if e, err := FindSession(home, "bb"); err != nil || e.ID != "bbb2" {
		t.Fatalf("prefix: %v %v", e, err)
	}
	if e, err := FindSession(home, "d4"); err != nil || e.ID != "ddd4" {
		t.Fatalf("suffix: %v %v", e, err)
	}
	add("bbb9", "", 6)
	if _, err := FindSession(home, "bbb"); err == nil || !strings.Contains(err.Error(), "ambiguous") {
		t.Fatalf("ambiguous: %v", err)
	}
	if _, err := FindSession(home, "zzz"); err == nil {
		t.Fatal("unknown id")
	}
	if e, err := LastSession(home); err != nil || e.ID != "bbb9" {
		t.Fatalf("last %v %v", e, err)
	}
	kids, err := Children(home, "aaa1")
	if err != nil || len(kids) != 1 || kids[0].ID != "ccc3" {
		t.Fatalf("children %+v %v", kids, err)
	}
	if got, _, err := ListSessions(t.TempDir(), 0, 10); err != nil || len(got) != 0 {
		t.Fatal("missing index should be empty")
	}
}

func TestConcurrentAppends(t *testing.T) {
	home := t.TempDir()
	r := newRec(t, home, "t4")
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				_ = r.AppendItem(protocol.UserMessage(fmt.Sprintf("g%d-%d", g, i)))
				if i%10 == 0 {
					_ = r.Flush()
				}
				_ = AppendIndex(home, IndexEntry{ID: protocol.ThreadID(fmt.Sprintf("s%d", g)), UpdatedAt: time.Now()})
			}
		}()
	}
	wg.Wait()
	_ = r.Close()
	s, err := Read(r.Path())
	if err != nil || len(s.Items) != 1600 || len(s.Warnings) != 0 {
		t.Fatalf("items %d warnings %v err %v", len(s.Items), s.Warnings, err)
	}
	b, _ := os.ReadFile(filepath.Join(home, IndexFile))
	for i, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		if !json.Valid(l) {
			t.Fatalf("index line %d torn: %q", i, l)
		}
	}
}

func FuzzReverseScan(f *testing.F) {
	f.Add([]byte("{\"type\":\"a\",\"payload\":1}\n{\"type\":\"b\"}\n"))
	f.Add([]byte("\n\n{\"type\":\"a\"}\r\n{bad\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "f.jsonl")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		var forward []string
		_ = scanLines(bytes.NewReader(data), func(_ int, b []byte) {
			if l, err := parseLine(b); err == nil && len(bytes.TrimSpace(b)) > 0 {
				forward = append(forward, l.Type)
			}
		})
		var backward []string
		if err := ReverseScan(path, func(l Line) bool { backward = append(backward, l.Type); return true }); err != nil {
			t.Fatal(err)
		}
		if len(forward) != len(backward) {
			t.Fatalf("forward %v backward %v", forward, backward)
		}
		for i := range forward {
			if forward[i] != backward[len(backward)-1-i] {
				t.Fatalf("forward %v backward %v", forward, backward)
			}
		}
	})
}
