package skills

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func copySkill(t *testing.T, name, dstDir string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "public", name, "SKILL.md"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dstDir, name, "SKILL.md"), string(b))
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Codex's sample skills load unchanged from every location; the nearest
// of two same-named skills wins and the other is named in a warning; a
// broken SKILL.md is named and skipped.
func TestDiscoverNearestFirst(t *testing.T) {
	home, codex, sys := t.TempDir(), t.TempDir(), t.TempDir()
	repo := t.TempDir()
	os.Mkdir(filepath.Join(repo, ".git"), 0o755)
	cwd := filepath.Join(repo, "pkg", "sub")
	os.MkdirAll(cwd, 0o755)
	copySkill(t, "gh-address-comments", filepath.Join(repo, ".agents", "skills"))
	copySkill(t, "example", filepath.Join(cwd, ".claude", "skills"))
	copySkill(t, "example", filepath.Join(home, ".agents", "skills"))
	writeFile(t, filepath.Join(codex, "skills", "lint", "SKILL.md"), "---\nname: lint\ndescription: Run the linters.\n---\nbody\n")
	writeFile(t, filepath.Join(sys, "skills", "broken", "SKILL.md"), "no front matter here\n")
	writeFile(t, filepath.Join(home, ".claude", "skills", "nodesc", "SKILL.md"), "---\nname: nodesc\n---\n")
	c := Discover(Locations{Cwd: cwd, UserHome: home, CodexHome: codex, SystemDir: sys})
	var names []string
	for _, s := range c.Skills {
		names = append(names, s.Name+"@"+s.Scope)
	}
	if got, want := strings.Join(names, " "), "example@repo gh-address-comments@repo lint@user"; got != want {
		t.Fatalf("skills %q, want %q", got, want)
	}
	if c.Skills[0].Path != filepath.Join(cwd, ".claude", "skills", "example", "SKILL.md") {
		t.Errorf("example from %s, want the nearest", c.Skills[0].Path)
	}
	all := strings.Join(c.Warnings, "\n")
	for _, want := range []string{
		"skill example in " + filepath.Join(home, ".agents", "skills", "example", "SKILL.md") + " is shadowed by",
		filepath.Join(sys, "skills", "broken", "SKILL.md") + ": no front matter",
		filepath.Join(home, ".claude", "skills", "nodesc", "SKILL.md") + ": front matter has no description",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("warnings lack %q:\n%s", want, all)
		}
	}
	if g, _ := c.Lookup("gh-address-comments"); !strings.HasPrefix(g.Description, "Help address review/issue comments") {
		t.Errorf("description %q", g.Description)
	}
}

// The list holds names, descriptions and paths, never bodies; over budget
// descriptions shrink first, then the farthest skills go, said so.
func TestRenderBudget(t *testing.T) {
	var skills []Skill
	for i := 0; i < 40; i++ {
		skills = append(skills, Skill{Name: "skill" + string(rune('a'+i%26)) + string(rune('a'+i/26)), Description: strings.Repeat("does things ", 20), Path: "/p/s/SKILL.md"})
	}
	full := Render(skills, 1<<20)
	if !strings.Contains(full, strings.Repeat("does things ", 19)) || strings.Contains(full, "more skills") {
		t.Fatal("a generous budget shortened something")
	}
	budget := BudgetChars(128000) // 2% of 128k tokens
	r := Render(skills, budget)
	if len(r) > budget+50 {
		t.Errorf("rendered %d chars over budget %d", len(r), budget)
	}
	if strings.Count(r, "(file: /p/s/SKILL.md)") != 40 || !strings.Contains(r, "…") {
		t.Errorf("at %d chars all 40 skills should be listed with shortened descriptions:\n%s", budget, r)
	}
	tiny := Render(skills, len(intro)+len(howTo)+300)
	if !strings.Contains(tiny, "more skills not listed") || strings.Contains(tiny, "does") {
		t.Errorf("a tiny budget should drop descriptions, then skills:\n%s", tiny)
	}
}

func TestMentionAndInjection(t *testing.T) {
	dir := t.TempDir()
	copySkill(t, "gh-address-comments", dir)
	c := Catalog{Skills: []Skill{{Name: "gh-address-comments", Description: "d", Path: filepath.Join(dir, "gh-address-comments", "SKILL.md")}}}
	got := c.Mentioned("use $gh-address-comments on $HOME, then $gh-address-comments again; cost$5")
	if len(got) != 1 || got[0].Name != "gh-address-comments" {
		t.Fatalf("mentioned %v", got)
	}
	inj, err := Injection(got[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(inj, "<skill>\n<name>gh-address-comments</name>\n<path>"+got[0].Path+"</path>\n---\nname: gh-address-comments") || !strings.HasSuffix(inj, "retry.\n\n</skill>") {
		t.Errorf("injection:\n%s", inj)
	}
}

func TestFilter(t *testing.T) {
	c := Catalog{Skills: []Skill{{Name: "gh-review"}, {Name: "gh-merge"}, {Name: "lint"}}}
	names := func(c Catalog) string {
		var n []string
		for _, s := range c.Skills {
			n = append(n, s.Name)
		}
		return strings.Join(n, ",")
	}
	if got := names(c.Filter([]string{"gh-*"}, []string{"gh-merge"})); got != "gh-review" {
		t.Errorf("allow gh-* deny gh-merge: %s", got)
	}
	if got := names(c.Filter(nil, nil)); got != "gh-review,gh-merge,lint" {
		t.Errorf("no policy: %s", got)
	}
}
