package rollout

import (
	"reflect"
	"strings"
	"testing"

	"github.com/grovecli/grove/protocol"
)

// A compacted line replaces everything before it: a resume rebuilds the
// compacted history plus what came after, not the original one.
func TestReadRebuildsHistoryFromCompactedLine(t *testing.T) {
	home := t.TempDir()
	r := newRec(t, home, "c1")
	for _, it := range []protocol.Item{protocol.UserMessage("old ask"), protocol.AssistantMessage("old answer"), protocol.FunctionCall("k", "exec_command", `{}`), protocol.FunctionCallOutput("k", "huge")} {
		if err := r.AppendItem(it); err != nil {
			t.Fatal(err)
		}
	}
	replacement := []protocol.Item{protocol.UserMessage("old ask"), protocol.GroveNotice("SUMMARY")}
	if err := r.AppendCompacted(Compacted{Message: "SUMMARY", ReplacementHistory: replacement}); err != nil {
		t.Fatal(err)
	}
	if err := r.AppendItem(protocol.UserMessage("next")); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	s, err := Read(r.Path())
	if err != nil {
		t.Fatal(err)
	}
	want := append(append([]protocol.Item(nil), replacement...), protocol.UserMessage("next"))
	if !reflect.DeepEqual(s.Items, want) {
		t.Fatalf("items = %+v\nwant %+v", s.Items, want)
	}
	if s.Compactions != 1 || len(s.Warnings) != 0 {
		t.Fatalf("compactions %d, warnings %v", s.Compactions, s.Warnings)
	}
}

// A compacted line without a replacement history (Codex's oldest format)
// keeps the history and says so, naming the line.
func TestReadCompactedWithoutReplacementKeepsHistory(t *testing.T) {
	path := writeFile(t, lines(
		metaLine,
		itemLine("kept"),
		`{"timestamp":"2026-11-20T10:00:01Z","type":"compacted","payload":{"message":"only a summary"}}`,
	))
	s, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Items) != 1 || s.Items[0].Content != "kept" || s.Compactions != 0 {
		t.Fatalf("items %+v, compactions %d", s.Items, s.Compactions)
	}
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], ":3: skipped unreadable line (compacted: no replacement_history") {
		t.Fatalf("warnings = %v", s.Warnings)
	}
}
