package skills

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse: any SKILL.md parses to a skill with a valid name and a
// bounded description, or to an error naming the file; never a panic.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"example", "gh-address-comments"} {
		b, err := os.ReadFile(filepath.Join("testdata", "public", name, "SKILL.md"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("\xef\xbb\xbf---\r\nname: a\r\ndescription: b\r\n---\r\n"))
	f.Add([]byte("---\nname: [x\n---\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "SKILL.md")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := Parse(p)
		if err != nil {
			if !strings.Contains(err.Error(), p) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if s.Name == "" || len(s.Name) > MaxNameLen || strings.ContainsAny(s.Name, " $/") || s.Description == "" || len(s.Description) > MaxDescriptionLen {
			t.Fatalf("bad skill %+v", s)
		}
	})
}
