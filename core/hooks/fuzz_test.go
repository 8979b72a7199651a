package hooks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseEvents: any hooks table parses to hooks or an error, never a
// panic, and every hook it yields has a key, a hash and a timeout ≥ 1 s.
func FuzzParseEvents(f *testing.F) {
	for _, name := range []string{"devkit.hooks.json", "gh-zen.hooks.json", "xhawk.hooks.json", "claude-code-hooks-mastery.settings.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", "public", name))
		if err != nil {
			f.Fatal(err)
		}
		var top map[string]json.RawMessage
		_ = json.Unmarshal(b, &top)
		f.Add([]byte(top["hooks"]))
	}
	f.Add([]byte(`{"PreToolUse":[{"matcher":"[","hooks":[{"type":"command","command":"x","timeout":-5}]}]}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		hs, _, err := parseEvents(raw, "/f/hooks.json", FormatHooksJSON, ScopeUser)
		if err != nil {
			return
		}
		for _, h := range hs {
			if h.Key == "" || len(h.Hash) != len("sha256:")+64 || h.Timeout < 1e9 || h.Command == "" {
				t.Fatalf("bad hook %+v", h)
			}
		}
	})
}
