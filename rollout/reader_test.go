package rollout

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadSkipsUnreadableLines: every bad line after the session_meta is
// skipped with a warning naming the file and the line; the rest is read.
func TestReadSkipsUnreadableLines(t *testing.T) {
	for _, tc := range []struct {
		name      string
		content   string
		items     []string
		warnLines []int
	}{
		{"clean", lines(metaLine, itemLine("a"), itemLine("b")), []string{"a", "b"}, nil},
		{"invalid json in the middle", lines(metaLine, itemLine("a"), `{"timestamp":"x",`, itemLine("b")), []string{"a", "b"}, []int{3}},
		{"torn last line", lines(metaLine, itemLine("a")) + itemLine("b")[:40], []string{"a"}, []int{3}},
		{"last line without newline is read", lines(metaLine, itemLine("a")) + itemLine("b"), []string{"a", "b"}, nil},
		{"line without type", lines(metaLine, `{"payload":{}}`, itemLine("a")), []string{"a"}, []int{2}},
		{"unknown type", lines(metaLine, `{"type":"compacted","payload":{}}`, itemLine("a")), []string{"a"}, []int{2}},
		{"item payload of the wrong shape", lines(metaLine, `{"type":"response_item","payload":[1]}`, itemLine("a")), []string{"a"}, []int{2}},
		{"event payload of the wrong shape", lines(metaLine, `{"type":"event_msg","payload":{"status":{"x":1}}}`), nil, []int{2}},
		{"turn context of the wrong shape", lines(metaLine, `{"type":"turn_context","payload":"x"}`), nil, []int{2}},
		{"second session_meta", lines(metaLine, itemLine("a"), metaLine), []string{"a"}, []int{3}},
		{"blank lines", lines(metaLine, "", "  ", itemLine("a")), []string{"a"}, nil},
		{"CRLF", strings.ReplaceAll(lines(metaLine, itemLine("a"), itemLine("b")), "\n", "\r\n"), []string{"a", "b"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, tc.content)
			s, err := Read(path)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, it := range s.Items {
				got = append(got, it.Content)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.items) {
				t.Errorf("items %q, want %q", got, tc.items)
			}
			if len(s.Warnings) != len(tc.warnLines) {
				t.Fatalf("warnings %q, want lines %v", s.Warnings, tc.warnLines)
			}
			for i, n := range tc.warnLines {
				if prefix := fmt.Sprintf("%s:%d: skipped unreadable line (", path, n); !strings.HasPrefix(s.Warnings[i], prefix) {
					t.Errorf("warning %q, want prefix %q", s.Warnings[i], prefix)
				}
			}
			if s.Meta.ID != "t" || s.Path != path {
				t.Errorf("meta %+v path %s", s.Meta, s.Path)
			}
		})
	}
}

// TestReadMetaErrors: without a valid session_meta first line there is no
// session; the error names the file.
func TestReadMetaErrors(t *testing.T) {
	for _, tc := range []struct {
		name, content, want string
	}{
		{"empty file", "", "no session_meta"},
		{"only blank lines", "\n \n", "no session_meta"},
		{"not json", "not json\n" + itemLine("a") + "\n", "invalid session_meta line"},
		{"torn meta", metaLine[:30], "invalid session_meta line"},
		{"first line is an item", lines(itemLine("a"), metaLine), `first line is "response_item"`},
		{"payload of the wrong shape", lines(`{"type":"session_meta","payload":[]}`), "invalid session_meta payload"},
		{"meta without id", lines(`{"type":"session_meta","payload":{"model":"m"}}`), "no id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, tc.content)
			_, err := Read(path)
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one naming %s and containing %q", err, path, tc.want)
			}
		})
	}
	missing := filepath.Join(t.TempDir(), "missing.jsonl")
	if _, err := Read(missing); err == nil || !strings.Contains(err.Error(), missing) {
		t.Fatalf("missing file: %v", err)
	}
}
