package protocol

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestGroveNoticeRoundTrips: the mark survives the rollout's JSON and a
// plain user message carries none.
func TestGroveNoticeRoundTrips(t *testing.T) {
	b, err := json.Marshal(GroveNotice("hello"))
	if err != nil {
		t.Fatal(err)
	}
	var back Item
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !back.IsGroveNotice() || back.Role != RoleUser {
		t.Fatalf("round trip %s -> %+v", b, back)
	}
	if plain, _ := json.Marshal(UserMessage("hi")); strings.Contains(string(plain), "origin") || UserMessage("hi").IsGroveNotice() {
		t.Fatalf("plain user message %s is marked", plain)
	}
}
