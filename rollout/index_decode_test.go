package rollout

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// indexLines are index lines of every shape the decoder meets: what
// AppendIndex writes, older and foreign spellings, torn and broken lines.
var indexLines = []string{
	mustLine(IndexEntry{ID: "019a-1", Cwd: "/w", UpdatedAt: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), FirstPrompt: "fix <the> \"parser\" & \\ tests\n\tnow", ChildCount: 3, RolloutPath: "sessions/a.jsonl", Model: "m", Status: "running"}),
	mustLine(IndexEntry{ID: "019a-2", ParentID: "019a-1", ThreadName: "имя 🌲", Note: "\u2028x\u0000", Cwd: "/w", AgentType: "explorer"}),
	`{"id":"a","cwd":"/w","updated_at":"2026-01-02T03:04:05+02:00","child_count":1,"rollout_path":"/abs/x.jsonl"}`,
	`{"ID":"upper","Cwd":"/w"}`,                       // encoding/json matches keys case-insensitively
	`{"id":"dup","id":"dup2","cwd":"/w"}`,             // the last duplicate wins
	`{"id":"extra","cwd":"/w","unknown":{"a":[1,2]}}`, // unknown fields are ignored
	`{"id":"esc\u00e9\ud83c\udf32","cwd":"/w"}`,       // \u escapes and a surrogate pair
	`{"id":"bad-utf8-` + "\xff\xfe" + `","cwd":"/w"}`, // invalid UTF-8 becomes U+FFFD
	`{"id":"lone-surrogate\ud800","cwd":"/w"}`,        // so does a lone surrogate
	`  {"id":"spaces" , "cwd" : "/w"}  `,
	`{"id":"torn","cwd":"/w","first_prompt":"refac`, // a killed writer's line
	`{"id":"x","child_count":"3"}`,                  // wrong type
	`{"id":"x","updated_at":"yesterday"}`,           // bad time
	`{"id":"x"} trailing`,
	`[1,2,3]`,
	`null`,
	`{"id":""}`,
	`{"id":"x","child_count":1e400}`,
	`not json at all`,
}

func mustLine(e IndexEntry) string {
	b, err := json.Marshal(e)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// The index decoder accepts and yields exactly what encoding/json does.
func TestParseIndexEntryMatchesEncodingJSON(t *testing.T) {
	for _, line := range indexLines {
		checkIndexDecode(t, line)
	}
}

func FuzzParseIndexEntry(f *testing.F) {
	for _, line := range indexLines {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, line string) { checkIndexDecode(t, line) })
}

func checkIndexDecode(t *testing.T, line string) {
	t.Helper()
	var want IndexEntry
	wantOK := json.Unmarshal([]byte(line), &want) == nil && want.ID != ""
	got, ok := parseIndexEntry("", []byte(line))
	if ok != wantOK {
		t.Fatalf("%q: decoded %v, encoding/json %v", line, ok, wantOK)
	}
	if !ok {
		return
	}
	want.RolloutPath = resolvePath("", want.RolloutPath)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\n got %+v\nwant %+v", line, got, want)
	}
}

// joinRelative is filepath.Join for every home and stored path.
func TestJoinRelativeIsJoin(t *testing.T) {
	homes := []string{"", "/", "/home/u/.grove", "/home/u/grove/", "rel/home", "/a//b", "/a/./b", "/a/../b", "."}
	rels := []string{"sessions/2026/01/01/r.jsonl", "../x", "./x", "a//b", "a/../b", "a/.", "a/", ".hidden/x", "a/.b", "x", "..", "."}
	for _, h := range homes {
		for _, r := range rels {
			if got, want := joinRelative(h, r), filepath.Join(h, r); got != want {
				t.Errorf("joinRelative(%q, %q) = %q, want %q", h, r, got, want)
			}
		}
	}
}

func FuzzJoinRelative(f *testing.F) {
	f.Add("/home/u/.grove", "sessions/a.jsonl")
	f.Add("/a/b", "../c/./d//e/")
	f.Fuzz(func(t *testing.T, home, rel string) {
		if filepath.IsAbs(rel) {
			return // resolvePath joins relative paths only
		}
		if got, want := joinRelative(home, rel), filepath.Join(home, rel); got != want {
			t.Fatalf("joinRelative(%q, %q) = %q, want %q", home, rel, got, want)
		}
	})
}
