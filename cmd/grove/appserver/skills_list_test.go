package appserver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/skills"
)

// skills/list answers with every skill of each cwd (names, descriptions,
// paths; never bodies) and each skipped file, in Codex's shape (the
// harness validates the result against Codex's schema).
func TestSkillsList(t *testing.T) {
	f := newFixture(t, nil)
	repo := t.TempDir()
	os.Mkdir(filepath.Join(repo, ".git"), 0o755)
	body := "---\nname: release\ndescription: Cut a release.\n---\nSECRET-BODY\n"
	p := filepath.Join(repo, ".agents", "skills", "release", "SKILL.md")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte(body), 0o644)
	bad := filepath.Join(repo, ".claude", "skills", "bad", "SKILL.md")
	os.MkdirAll(filepath.Dir(bad), 0o755)
	os.WriteFile(bad, []byte("no front matter"), 0o644)
	c := f.startWith(t, Options{Cwd: repo, Skills: func(cwd string) skills.Catalog { return skills.Discover(skills.Locations{Cwd: cwd}) }})
	defer c.close()
	c.initialize()
	r := c.result("skills/list", map[string]any{"cwds": []string{repo}})
	data := r["data"].([]any)
	entry := data[0].(map[string]any)
	sk := entry["skills"].([]any)
	if entry["cwd"] != repo || len(sk) != 1 {
		t.Fatalf("skills/list: %v", r)
	}
	s := sk[0].(map[string]any)
	if s["name"] != "release" || s["path"] != p || s["scope"] != "repo" || s["provenance"] != "project" || s["enabled"] != true {
		t.Errorf("skill %v", s)
	}
	errs := entry["errors"].([]any)
	if len(errs) != 1 || errs[0].(map[string]any)["path"] != bad {
		t.Errorf("errors %v", errs)
	}
	// No cwds: the server's own.
	r = c.result("skills/list", map[string]any{})
	if got := r["data"].([]any)[0].(map[string]any)["cwd"]; got != repo {
		t.Errorf("default cwd %v", got)
	}
	if b, _ := json.Marshal(r); strings.Contains(string(b), "SECRET-BODY") {
		t.Error("skills/list carried a skill's body")
	}
}
