package rollout

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/grovecli/grove/protocol"
)

var t0 = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)

func testMeta(id protocol.ThreadID) SessionMeta {
	return SessionMeta{ID: id, Model: "m", Cwd: "/w", Source: protocol.SourceRoot, Timestamp: t0}
}

func newRec(t testing.TB, home string, id protocol.ThreadID) *Recorder {
	t.Helper()
	r, err := Create(home, testMeta(id))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// appendRaw writes s to the end of path, as a killed or foreign writer would.
func appendRaw(t testing.TB, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t testing.TB, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f.jsonl")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// metaLine is a valid session_meta line (without terminator).
const metaLine = `{"timestamp":"2026-11-23T10:00:00Z","type":"session_meta","payload":{"id":"t","model":"m","cwd":"/w","depth":0,"source":"root","sandbox":{"mode":"read-only"},"timestamp":"2026-11-23T10:00:00Z"}}`

func itemLine(text string) string {
	return `{"timestamp":"2026-11-23T10:00:01Z","type":"response_item","payload":{"type":"message","role":"user","content":"` + text + `"}}`
}

func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }
