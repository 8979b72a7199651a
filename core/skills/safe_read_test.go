package skills

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Issue 31.2 and red team: SKILL.md is read for the model through the
// pinned read. A SKILL.md linked to grove's environment is a problem, never
// read; a skill directory linked into /proc is not walked; a skill found
// good and then re-pointed at /proc/self/environ before its body is loaded
// is refused at load time.
func TestSkillFilesReadSafely(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("procfs is Linux's")
	}
	cwd, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	skillsDir := filepath.Join(cwd, ".agents", "skills")
	for _, d := range []string{"env", "good"} {
		if err := os.MkdirAll(filepath.Join(skillsDir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("/proc/self/environ", filepath.Join(skillsDir, "env", "SKILL.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/proc/self", filepath.Join(skillsDir, "procdir")); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(skillsDir, "good", "SKILL.md")
	if err := os.WriteFile(good, []byte("---\nname: good\ndescription: fine\n---\nbody\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := Discover(Locations{Cwd: cwd})
	if len(c.Skills) != 1 || c.Skills[0].Name != "good" {
		t.Fatalf("skills %+v", c.Skills)
	}
	var refused bool
	for _, p := range c.Problems {
		if strings.Contains(p.Path, "procdir") {
			t.Errorf("walked into /proc: %+v", p)
		}
		if strings.HasSuffix(p.Path, filepath.Join("env", "SKILL.md")) && strings.Contains(p.Message, "/proc") {
			refused = true
		}
		if strings.Contains(p.Message, "PATH=") {
			t.Errorf("grove's environment in a problem: %s", p.Message)
		}
	}
	if !refused {
		t.Errorf("the /proc SKILL.md was not refused: %+v", c.Problems)
	}
	if err := os.Remove(good); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/proc/self/environ", good); err != nil {
		t.Fatal(err)
	}
	body, err := c.Skills[0].Body()
	if err == nil || strings.Contains(body, "PATH=") || !strings.Contains(err.Error(), "/proc") {
		t.Fatalf("re-pointed SKILL.md loaded: %q, %v", body, err)
	}
}
