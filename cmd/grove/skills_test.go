package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// grove skills lists what it found and where, nearest first, and names a
// skill a nearer one shadows.
func TestSkillsCommand(t *testing.T) {
	hookEnv(t)
	repo := t.TempDir()
	os.Mkdir(filepath.Join(repo, ".git"), 0o755)
	write := func(dir, name, desc string) string {
		p := filepath.Join(dir, name, "SKILL.md")
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("---\nname: "+name+"\ndescription: "+desc+"\n---\nbody\n"), 0o644)
		return p
	}
	near := write(filepath.Join(repo, ".agents", "skills"), "release", "Cut a release (project).")
	home := t.TempDir()
	// runCLI points CODEX_HOME at home/no-codex-home.
	far := write(filepath.Join(home, "no-codex-home", "skills"), "release", "Cut a release (user).")
	write(filepath.Join(os.Getenv("HOME"), ".claude", "skills"), "lint", "Run the linters.")
	out, _, err := runCLI(t, home, "", "skills", "-C", repo)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"$release (repo) " + near, "Cut a release (project).", "$lint (user)", "warning: skill release in " + far + " is shadowed by " + near} {
		if !strings.Contains(out, want) {
			t.Errorf("grove skills lacks %q:\n%s", want, out)
		}
	}
}
