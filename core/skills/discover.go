package skills

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/grovecli/grove/core/project"
	"github.com/grovecli/grove/core/tools/safefile"
)

// Locations are where skills are looked for.
type Locations struct {
	Cwd string
	// UserHome holds ~/.agents/skills and ~/.claude/skills.
	UserHome string
	// CodexHome holds $CODEX_HOME/skills.
	CodexHome string
	// SystemDir holds /etc/codex/skills.
	SystemDir string
}

// Catalog is the skills found, nearest first, one per name.
type Catalog struct {
	Skills []Skill
	// Warnings name each file skipped and why, and each skill a nearer
	// one of the same name shadows; Problems are the same by file.
	Warnings []string
	Problems []Problem
}

// Problem is one skill file that was skipped or shadowed.
type Problem struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

func (c *Catalog) problem(path, msg string) {
	c.Warnings = append(c.Warnings, msg)
	c.Problems = append(c.Problems, Problem{Path: path, Message: msg})
}

// roots lists skill directories nearest first: the repository's
// .agents/skills and .claude/skills from cwd up to its root, then the
// user's, Codex's home and the system's.
func (l Locations) roots() []struct{ dir, scope string } {
	var out []struct{ dir, scope string }
	add := func(dir, scope string) { out = append(out, struct{ dir, scope string }{dir, scope}) }
	if l.Cwd != "" {
		for _, d := range project.Chain(l.Cwd) {
			if d != l.UserHome {
				add(filepath.Join(d, ".agents", "skills"), "repo")
				add(filepath.Join(d, ".claude", "skills"), "repo")
			}
		}
	}
	if l.UserHome != "" {
		add(filepath.Join(l.UserHome, ".agents", "skills"), "user")
	}
	if l.CodexHome != "" {
		add(filepath.Join(l.CodexHome, "skills"), "user")
	}
	if l.UserHome != "" {
		add(filepath.Join(l.UserHome, ".claude", "skills"), "user")
	}
	if l.SystemDir != "" {
		add(filepath.Join(l.SystemDir, "skills"), "system")
	}
	return out
}

// readPolicy reads skill files as files the model may have written: the
// workspace (cwd) and the temp dir are the roots a planted link may not
// leave.
func (l Locations) readPolicy() safefile.ReadPolicy {
	var roots []string
	for _, r := range append([]string{l.Cwd}, safefile.TempDirs()...) {
		if r == "" || !filepath.IsAbs(r) {
			continue
		}
		if real, err := safefile.Resolve(r, false); err == nil {
			roots = append(roots, real)
		}
	}
	return safefile.ReadPolicy{Roots: roots, MaxBytes: maxSkillBytes}
}

// maxDepth bounds how deep below a skills directory SKILL.md is looked
// for (skills/<name>/SKILL.md, or one level of grouping).
const maxDepth = 3

// Discover finds every skill; for a name found twice the nearer wins.
func Discover(l Locations) Catalog {
	var c Catalog
	byName := map[string]Skill{}
	policy := l.readPolicy()
	for _, r := range l.roots() {
		for _, path := range skillFiles(r.dir) {
			s, err := parseWith(path, policy)
			if err != nil {
				c.problem(path, err.Error()+" (skipped)")
				continue
			}
			s.Scope = r.scope
			if prev, ok := byName[s.Name]; ok {
				if prev.Path != s.Path {
					c.problem(s.Path, fmt.Sprintf("skill %s in %s is shadowed by %s", s.Name, s.Path, prev.Path))
				}
				continue
			}
			byName[s.Name] = s
			c.Skills = append(c.Skills, s)
		}
	}
	return c
}

// skillFiles lists the SKILL.md files under dir, sorted, skipping hidden
// directories; a symlinked skill directory is followed.
func skillFiles(dir string) []string {
	var out []string
	var walk func(d string, depth int)
	walk = func(d string, depth int) {
		entries, err := os.ReadDir(d)
		if err != nil {
			return
		}
		for _, e := range entries {
			p := filepath.Join(d, e.Name())
			if e.Name() == "SKILL.md" && depth > 0 {
				out = append(out, p)
				continue
			}
			if strings.HasPrefix(e.Name(), ".") || depth >= maxDepth {
				continue
			}
			st, err := os.Stat(p)
			if err != nil || !st.IsDir() {
				continue
			}
			if real, err := safefile.Resolve(p, false); err != nil || safefile.KernelTree(real) != "" {
				continue // a skill directory linked into /proc, /sys or /dev
			}
			walk(p, depth+1)
		}
	}
	walk(dir, 0)
	sort.Strings(out)
	return out
}

// Lookup returns the skill named name.
func (c Catalog) Lookup(name string) (Skill, bool) {
	for _, s := range c.Skills {
		if s.Name == name {
			return s, true
		}
	}
	return Skill{}, false
}

// Filter keeps the skills a template allows: allow and deny are exact
// names or path.Match globs; deny wins; neither set keeps all.
func (c Catalog) Filter(allow, deny []string) Catalog {
	if len(allow) == 0 && len(deny) == 0 {
		return c
	}
	match := func(globs []string, name string) bool {
		for _, g := range globs {
			if ok, _ := filepath.Match(g, name); ok || g == name {
				return true
			}
		}
		return false
	}
	out := Catalog{Warnings: c.Warnings, Problems: c.Problems}
	for _, s := range c.Skills {
		if match(deny, s.Name) || (len(allow) > 0 && !match(allow, s.Name)) {
			continue
		}
		out.Skills = append(out.Skills, s)
	}
	return out
}
