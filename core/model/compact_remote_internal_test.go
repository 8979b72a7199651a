package model

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/grovecli/grove/protocol"
)

// What the compact endpoint returns is kept as Codex keeps it
// (should_keep_compacted_history_item): user and assistant messages and
// the compaction item (also under its older name compaction_summary);
// developer messages, reasoning and calls are dropped.
func TestKeptCompactedItems(t *testing.T) {
	raw := `[
	 {"type":"message","role":"developer","content":[{"type":"input_text","text":"stale instructions"}]},
	 {"type":"message","role":"user","content":[{"type":"input_text","text":"fix the parser"}]},
	 {"type":"reasoning","summary":[],"encrypted_content":"r"},
	 {"type":"function_call","call_id":"c","name":"x","arguments":"{}"},
	 {"type":"message","role":"assistant","content":[{"type":"output_text","text":"done"}]},
	 {"type":"compaction_summary","encrypted_content":"old-name"},
	 {"type":"compaction","encrypted_content":"opaque"},
	 {"type":"compaction","encrypted_content":""}]`
	var out []compactOutputItem
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		t.Fatal(err)
	}
	want := []protocol.Item{
		{Type: protocol.ItemMessage, Role: protocol.RoleUser, Content: "fix the parser"},
		{Type: protocol.ItemMessage, Role: protocol.RoleAssistant, Content: "done"},
		{Type: protocol.ItemCompaction, EncryptedContent: "old-name"},
		{Type: protocol.ItemCompaction, EncryptedContent: "opaque"},
	}
	if got := keptCompactedItems(out); !reflect.DeepEqual(got, want) {
		t.Fatalf("kept %+v\nwant %+v", got, want)
	}
	// A compaction item goes back to the provider as it came.
	in := responsesInput([]protocol.Item{{Type: protocol.ItemCompaction, EncryptedContent: "opaque"}}, argumentReplay{}, nil)
	b, _ := json.Marshal(in)
	if string(b) != `[{"type":"compaction","encrypted_content":"opaque"}]` {
		t.Fatalf("replayed as %s", b)
	}
}
