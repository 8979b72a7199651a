package templates

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSeedUserAgentsOnceNeverOverwriting: seed 002's seed-on-empty writes
// the built-ins into $GROVE_HOME/agents once; a file already there is
// kept; a user who deletes the copies is not re-seeded; the catalog shows
// the copies as user files.
func TestSeedUserAgentsOnceNeverOverwriting(t *testing.T) {
	home := t.TempDir()
	mine := filepath.Join(home, "agents", "worker.md")
	write(t, mine, "---\ndescription: my worker\n---\nMine.\n")
	wrote, err := SeedUserAgents(home)
	if err != nil {
		t.Fatal(err)
	}
	if len(wrote) != len(EmbeddedNames)-1 {
		t.Fatalf("wrote %v", wrote)
	}
	if b, _ := os.ReadFile(mine); string(b) != "---\ndescription: my worker\n---\nMine.\n" {
		t.Fatalf("the user's worker.md was overwritten: %q", b)
	}
	c := Load(Dirs{GroveHome: home}, Options{})
	for _, n := range EmbeddedNames {
		tpl, err := c.Lookup(n)
		if err != nil || tpl.Scope != "user" || tpl.Source != filepath.Join(home, "agents", n+".md") {
			t.Errorf("%s: %+v %v", n, tpl, err)
		}
	}
	for _, n := range EmbeddedNames {
		_ = os.Remove(filepath.Join(home, "agents", n+".md"))
	}
	if wrote, err := SeedUserAgents(home); err != nil || len(wrote) != 0 {
		t.Fatalf("re-seeded after the user deleted the copies: %v %v", wrote, err)
	}
	if ents, _ := os.ReadDir(filepath.Join(home, "agents")); len(ents) != 0 {
		t.Fatalf("files came back: %v", ents)
	}
}
