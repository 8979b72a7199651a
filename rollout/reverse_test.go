package rollout

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/grovecli/grove/protocol"
)

// typed is a minimal valid line of type typ.
func typed(typ string) string { return `{"type":"` + typ + `","payload":{}}` }

// blockSizes exercise boundaries falling everywhere, including inside CRLF.
var blockSizes = []int{1, 2, 3, 7, 16, 64, reverseBlock}

func TestReverseScan(t *testing.T) {
	long := `{"type":"long","payload":"` + strings.Repeat("y", 300) + `"}`
	for _, tc := range []struct {
		name, content string
		want          []string // types, last first
	}{
		{"empty file", "", nil},
		{"only newlines", "\n\r\n\n", nil},
		{"one line", typed("a") + "\n", []string{"a"}},
		{"no trailing newline", typed("a") + "\n" + typed("b"), []string{"b", "a"}},
		{"CRLF", typed("a") + "\r\n" + typed("b") + "\r\n", []string{"b", "a"}},
		{"blank lines between", "\n" + typed("a") + "\n\n  \n" + typed("b") + "\n\n", []string{"b", "a"}},
		{"torn last line", typed("a") + "\n" + typed("b") + "\n" + `{"type":"c","pay`, []string{"b", "a"}},
		{"invalid middle line", typed("a") + "\n{nope}\n" + typed("b") + "\n", []string{"b", "a"}},
		{"line without type", typed("a") + "\n" + `{"payload":1}` + "\n", []string{"a"}},
		{"line longer than the block", typed("a") + "\n" + long + "\n" + typed("b") + "\n", []string{"b", "long", "a"}},
		{"long first and last lines", long + "\n" + typed("a") + "\n" + long, []string{"long", "a", "long"}},
	} {
		path := writeFile(t, tc.content)
		for _, block := range blockSizes {
			t.Run(fmt.Sprintf("%s/block=%d", tc.name, block), func(t *testing.T) {
				var got []string
				err := reverseScan(path, block, func(b []byte) bool {
					if l, err := parseLine(b); err == nil {
						got = append(got, l.Type)
					}
					return true
				})
				if err != nil || fmt.Sprint(got) != fmt.Sprint(tc.want) {
					t.Fatalf("got %q (%v), want %q", got, err, tc.want)
				}
			})
		}
		var got []string
		if err := ReverseScan(path, func(l Line) bool { got = append(got, l.Type); return true }); err != nil || fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: ReverseScan got %q (%v), want %q", tc.name, got, err, tc.want)
		}
	}
}

// TestReverseScanLargeFile crosses many 64 KiB blocks with lines of mixed
// lengths, one of them three blocks long, in LF and CRLF files.
func TestReverseScanLargeFile(t *testing.T) {
	for _, eol := range []string{"\n", "\r\n"} {
		var sb strings.Builder
		const n = 3000
		for i := range n {
			pad := strings.Repeat("x", i%7*50)
			if i == n/2 {
				pad = strings.Repeat("y", 3*reverseBlock)
			}
			fmt.Fprintf(&sb, `{"type":"t%d","payload":"%s"}%s`, i, pad, eol)
		}
		sb.WriteString(`{"type":"torn","pay`)
		path := writeFile(t, sb.String())
		want := n - 1
		err := ReverseScan(path, func(l Line) bool {
			if l.Type != fmt.Sprintf("t%d", want) {
				t.Fatalf("got %s, want t%d", l.Type, want)
			}
			if want == n/2 && len(l.Payload) != 3*reverseBlock+2 {
				t.Fatalf("long payload has %d bytes", len(l.Payload))
			}
			want--
			return true
		})
		if err != nil || want != -1 {
			t.Fatalf("eol %q: err %v, stopped before t%d", eol, err, want)
		}
		seen := 0
		must(t, ReverseScan(path, func(Line) bool { seen++; return seen < 5 }))
		if seen != 5 {
			t.Fatalf("fn returned false at 5 but saw %d lines", seen)
		}
	}
	if err := ReverseScan(filepath.Join(t.TempDir(), "missing"), func(Line) bool { return true }); err == nil {
		t.Fatal("missing file scanned")
	}
}

// countingReader records how many bytes a scan reads.
type countingReader struct {
	r    *bytes.Reader
	read int64
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.read += int64(n)
	return n, err
}

// TestReverseLinesReadsOnlyTheTail: stopping after the last line of a
// 4 MiB file reads one block, not the file.
func TestReverseLinesReadsOnlyTheTail(t *testing.T) {
	data := bytes.Repeat([]byte(typed("a")+"\n"), (4<<20)/len(typed("a")+"\n"))
	cr := &countingReader{r: bytes.NewReader(data)}
	got := 0
	must(t, reverseLines(cr, int64(len(data)), reverseBlock, func([]byte) bool { got++; return false }))
	if got != 1 || cr.read != reverseBlock {
		t.Fatalf("saw %d lines, read %d bytes of %d", got, cr.read, len(data))
	}
}

func TestReverseLinesFileShrank(t *testing.T) {
	data := []byte(typed("a") + "\n")
	err := reverseLines(bytes.NewReader(data), int64(len(data))+10, 4, func([]byte) bool { return true })
	if err == nil {
		t.Fatal("a file shorter than its size was scanned without error")
	}
}

func TestLastStatusChange(t *testing.T) {
	status := func(st protocol.AgentStatus, at time.Time) protocol.Event {
		return protocol.Event{Type: protocol.EventStatusChanged, ThreadID: "t", Status: &st, Timestamp: at}
	}
	t1, t2 := t0.Add(time.Minute), t0.Add(2*time.Minute)
	for _, tc := range []struct {
		name   string
		events []protocol.Event
		raw    string // appended after the events
		ok     bool
		want   protocol.AgentStatus
		at     time.Time
	}{
		{name: "no status", events: []protocol.Event{{Type: protocol.EventMessage, Message: "status_changed"}}},
		{name: "latest wins", events: []protocol.Event{status(protocol.PendingInit(), t0), status(protocol.Running(), t1), status(protocol.Errored("bad"), t2)}, ok: true, want: protocol.Errored("bad"), at: t2},
		{name: "later events that mention the status are not statuses", events: []protocol.Event{status(protocol.Running(), t1), {Type: protocol.EventMessage, Message: `"status_changed"`}, {Type: protocol.EventWarning, Message: `{"type":"status_changed"}`}}, ok: true, want: protocol.Running(), at: t1},
		{name: "torn status line is skipped", events: []protocol.Event{status(protocol.Running(), t1)}, raw: `{"timestamp":"2026-11-23T11:00:00Z","type":"event_msg","payload":{"type":"status_changed","status":"shut`, ok: true, want: protocol.Running(), at: t1},
		{name: "event without time takes the line's", events: []protocol.Event{status(protocol.Completed("done", true), time.Time{})}, ok: true, want: protocol.Completed("done", true), at: t0.Add(time.Hour)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRec(t, t.TempDir(), "t")
			r.now = func() time.Time { return t0.Add(time.Hour) }
			for _, ev := range tc.events {
				must(t, r.AppendEvent(ev))
				must(t, r.AppendItem(protocol.AssistantMessage("between")))
			}
			must(t, r.Close())
			if tc.raw != "" {
				appendRaw(t, r.Path(), tc.raw)
			}
			st, at, ok, err := LastStatusChange(r.Path())
			if err != nil || ok != tc.ok || st != tc.want || !at.Equal(tc.at) {
				t.Fatalf("got %v at %v ok=%v err=%v, want %v at %v ok=%v", st, at, ok, err, tc.want, tc.at, tc.ok)
			}
		})
	}
	if _, _, _, err := LastStatusChange(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Fatal("missing rollout")
	}
}

// FuzzReverseScan: on any bytes, a reverse scan never panics and yields
// exactly the valid lines a forward read finds, last first, whatever the
// block size.
func FuzzReverseScan(f *testing.F) {
	f.Add([]byte(typed("a")+"\n"+typed("b")+"\n"), uint8(3))
	f.Add([]byte("\n\n"+typed("a")+"\r\n{bad\n"), uint8(1))
	f.Add([]byte(typed("a")+"\r\r\n \n"+typed("b")), uint8(5))
	f.Add([]byte(`{"timestamp":"2026-11-23T10:00:00Z","type":"x","payload":[1,{"a":"\n"}]}`+"\n"+`{"type":"y","timestamp":"bad"}`), uint8(8))
	f.Add([]byte{}, uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, block uint8) {
		var forward []Line
		must(t, scanLines(bytes.NewReader(data), func(_ int, b []byte) {
			if len(bytes.TrimSpace(b)) == 0 {
				return
			}
			if l, err := parseLine(b); err == nil {
				forward = append(forward, l)
			}
		}))
		path := filepath.Join(t.TempDir(), "f.jsonl")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		check := func(name string, backward []Line) {
			t.Helper()
			if len(backward) != len(forward) {
				t.Fatalf("%s: %d lines backward, %d forward", name, len(backward), len(forward))
			}
			for i, l := range backward {
				w := forward[len(forward)-1-i]
				if l.Type != w.Type || !l.Timestamp.Equal(w.Timestamp) || !bytes.Equal(l.Payload, w.Payload) {
					t.Fatalf("%s: line %d backward %+v, forward %+v", name, i, l, w)
				}
			}
		}
		var backward []Line
		must(t, ReverseScan(path, func(l Line) bool { backward = append(backward, l); return true }))
		check("ReverseScan", backward)
		backward = nil
		must(t, reverseScan(path, int(block)+1, func(b []byte) bool {
			if l, err := parseLine(b); err == nil {
				backward = append(backward, l)
			}
			return true
		}))
		check(fmt.Sprintf("block %d", int(block)+1), backward)
	})
}
