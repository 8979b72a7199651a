package mcp

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

var providerName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

func TestSanitizeName(t *testing.T) {
	long := QualifiedName("server", strings.Repeat("very_long_tool_name_", 5))
	for _, tc := range []struct {
		raw, want string
	}{
		{"mcp__github__create_issue", "mcp__github__create_issue"},
		{"mcp__everything__echo", "mcp__everything__echo"},
		{"mcp__t__write.note", "mcp__t__write_note_" + sanitizeName("mcp__t__write.note")[len("mcp__t__write_note_"):]},
	} {
		if got := sanitizeName(tc.raw); got != tc.want {
			t.Errorf("sanitizeName(%q) = %q, want %q", tc.raw, got, tc.want)
		}
	}
	// Names that differ only in a rejected character stay distinct.
	a, b := sanitizeName("mcp__t__a.b"), sanitizeName("mcp__t__a/b")
	if a == b || a == "mcp__t__a_b" {
		t.Fatalf("collision: %q %q", a, b)
	}
	got := sanitizeName(long)
	if len(got) != 64 || !providerName.MatchString(got) || got != sanitizeName(long) {
		t.Fatalf("long name -> %q (%d)", got, len(got))
	}
}

func FuzzSanitizeName(f *testing.F) {
	for _, s := range []string{"mcp__a__b", "mcp__a__ü.ñ", strings.Repeat("x", 200), "", "mcp__a__\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got := sanitizeName(raw)
		if raw != "" && !providerName.MatchString(got) {
			t.Fatalf("sanitizeName(%q) = %q: not a provider-safe name", raw, got)
		}
		if got != sanitizeName(raw) {
			t.Fatal("not stable")
		}
	})
}

func TestSanitizeSchema(t *testing.T) {
	for _, tc := range []struct {
		in   any
		want string
	}{
		{nil, `{"properties":{},"type":"object"}`},
		{"nonsense", `{"properties":{},"type":"object"}`},
		{map[string]any{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "properties": map[string]any{"a": map[string]any{"type": "string"}}, "required": []string{"a"}},
			`{"properties":{"a":{"type":"string"}},"required":["a"],"type":"object"}`},
		{map[string]any{"type": "object"}, `{"properties":{},"type":"object"}`},
	} {
		got := sanitizeSchema(tc.in)
		var a, b any
		_ = json.Unmarshal(got, &a)
		_ = json.Unmarshal([]byte(tc.want), &b)
		ga, _ := json.Marshal(a)
		gb, _ := json.Marshal(b)
		if string(ga) != string(gb) {
			t.Errorf("sanitizeSchema(%v) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestTruncateKeepsHeadTailAndUTF8(t *testing.T) {
	s := strings.Repeat("é", 1000) // 2000 bytes
	got := truncate(s, 101)
	if !utf8.ValidString(got) || !strings.Contains(got, "bytes truncated") || !strings.HasPrefix(got, "éé") || !strings.HasSuffix(got, "éé") {
		t.Fatalf("truncate = %q", got)
	}
	if truncate("short", 100) != "short" {
		t.Fatal("short text changed")
	}
}
