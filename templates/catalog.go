package templates

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/grovecli/grove/core/project"
	"github.com/grovecli/grove/core/tools/safefile"
)

//go:embed agents/*.md
var embedded embed.FS

// EmbeddedNames are the built-in roles.
var EmbeddedNames = []string{"orchestrator", "worker", "explorer"}

// Dirs locates the template sources.
type Dirs struct {
	Cwd       string // project walk starts here, up to the nearest .git
	GroveHome string // $GROVE_HOME
	UserHome  string // ~ (for ~/.codex/.agents and ~/.claude/agents)
	// AgentsDir is seed 004's SubagentConfig agents_dir: a user directory
	// of definitions, searched after the project's directories (project
	// agents shadow user agents) and before the other user directories
	// (it is the one the user configured).
	AgentsDir string
}

// Options tunes loading.
type Options struct {
	// ModelAliases maps Claude model aliases (sonnet, opus, haiku) to ids.
	ModelAliases map[string]string
}

// Problem is a template file that was skipped.
type Problem struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Err  string `json:"error"`
}

// Catalog is every template visible from one directory.
type Catalog struct {
	byType   map[string]*Template
	broken   map[string]*ParseError // agent_type → nearest file's error
	problems []Problem
}

type source struct {
	dir, scope string
	// seeded: older grove versions copied the built-ins here; an unedited
	// copy must not shadow the user's other directories.
	seeded bool
}

// searchPath lists template directories nearest first.
func searchPath(d Dirs) []source {
	var out []source
	if d.Cwd != "" {
		for _, c := range project.Chain(d.Cwd) {
			out = append(out,
				source{dir: filepath.Join(c, ".grove", "agents"), scope: "project"},
				source{dir: filepath.Join(c, ".codex", ".agents"), scope: "project"},
				source{dir: filepath.Join(c, ".claude", "agents"), scope: "project"})
		}
	}
	if d.AgentsDir != "" {
		out = append(out, source{dir: filepath.Clean(d.AgentsDir), scope: "user"})
	}
	if d.GroveHome != "" {
		out = append(out, source{dir: filepath.Join(d.GroveHome, "agents"), scope: "user", seeded: true})
	}
	if d.UserHome != "" {
		out = append(out,
			source{dir: filepath.Join(d.UserHome, ".codex", ".agents"), scope: "user"},
			source{dir: filepath.Join(d.UserHome, ".claude", "agents"), scope: "user"})
	}
	return out
}

// Load discovers every template; broken files become Problems and never
// take the others down.
func Load(d Dirs, opts Options) *Catalog {
	c := &Catalog{byType: map[string]*Template{}, broken: map[string]*ParseError{}}
	// Unedited seeded copies in $GROVE_HOME/agents rank as the built-ins
	// they are: loaded last, but from their file, as the user's.
	seeded := map[string]string{}
	policy := d.readPolicy()
	for _, s := range searchPath(d) {
		entries, err := os.ReadDir(s.dir)
		if err != nil {
			continue
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
		for _, e := range entries {
			if e.IsDir() || !(strings.HasSuffix(e.Name(), ".md") || isYAMLFile(e.Name())) {
				continue
			}
			path := filepath.Join(s.dir, e.Name())
			data, err := readTemplate(path, policy)
			if err != nil {
				c.problems = append(c.problems, Problem{Path: path, Err: err.Error()})
				continue
			}
			if s.seeded && isSeedCopy(e.Name(), data) {
				seeded[strings.TrimSuffix(e.Name(), ".md")] = path
				continue // the built-in itself, loaded last
			}
			c.add(path, s.scope, data, opts)
		}
	}
	for _, name := range EmbeddedNames {
		data, err := embedded.ReadFile("agents/" + name + ".md")
		if err != nil {
			continue
		}
		path, scope := "embedded:"+name+".md", "embedded"
		if p, ok := seeded[name]; ok {
			// The copy holds the built-in's text (or an earlier built-in's):
			// the current built-in, shown as the user's file.
			path, scope = p, "user"
		}
		c.add(path, scope, data, opts)
		if t, ok := c.byType[name]; ok && t.Source == path {
			t.Builtin = true
		}
	}
	return c
}

func (c *Catalog) add(path, scope string, data []byte, opts Options) {
	t, err := parse(path, data, opts)
	if err != nil {
		var pe *ParseError
		if !errors.As(err, &pe) {
			pe = &ParseError{Path: path, Msg: err.Error()}
		}
		c.problems = append(c.problems, Problem{Path: pe.Path, Line: pe.Line, Err: pe.Msg})
		base := filepath.Base(strings.TrimPrefix(path, "embedded:"))
		stem := strings.ToLower(strings.TrimSuffix(base, filepath.Ext(base)))
		if _, taken := c.byType[stem]; !taken {
			if _, seen := c.broken[stem]; !seen {
				c.broken[stem] = pe
			}
		}
		return
	}
	t.Scope = scope
	if _, taken := c.byType[t.AgentType]; taken {
		return // a nearer template wins
	}
	if _, brokenNearer := c.broken[t.AgentType]; brokenNearer {
		return
	}
	c.byType[t.AgentType] = t
}

// Lookup returns the winning template of agentType.
func (c *Catalog) Lookup(agentType string) (*Template, error) {
	n, err := ValidateAgentType(agentType)
	if err != nil {
		return nil, err
	}
	if c == nil {
		return nil, fmt.Errorf("missing agent template: %s", n)
	}
	if pe, ok := c.broken[n]; ok {
		return nil, pe
	}
	if t, ok := c.byType[n]; ok {
		return t, nil
	}
	return nil, fmt.Errorf("missing agent template: %s", n)
}

// All returns one template per agent_type, sorted.
func (c *Catalog) All() []*Template {
	if c == nil {
		return nil
	}
	out := make([]*Template, 0, len(c.byType))
	for _, t := range c.byType {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].AgentType < out[j].AgentType })
	return out
}

// Problems lists the files that were skipped.
func (c *Catalog) Problems() []Problem {
	if c == nil {
		return nil
	}
	return append([]Problem(nil), c.problems...)
}

// isSeedCopy reports whether a file in $GROVE_HOME/agents is an unedited
// copy of a built-in, as grove once seeded there. Seed 002's user scope
// (~/.codex/.agents) must override the built-ins, and such a copy, searched
// first, would shadow it; so grove no longer seeds, and treats old copies
// as the built-ins they are. An edited copy is the user's own template.
func isSeedCopy(name string, data []byte) bool {
	stem := strings.TrimSuffix(name, ".md")
	for _, n := range EmbeddedNames {
		if n == stem {
			builtin, err := embedded.ReadFile("agents/" + n + ".md")
			sum := sha256.Sum256(data)
			return err == nil && string(builtin) == string(data) || formerBuiltins[stem] == hex.EncodeToString(sum[:])
		}
	}
	return false
}

// formerBuiltins are the SHA-256 of earlier built-in versions that may
// have been seeded: before seed 002's rule that a persona's block replaces
// the default block, the persona blocks held only their additions.
var formerBuiltins = map[string]string{
	"explorer": "10e4e577cf35ac59f98fcfe66f36ff6ad5918f171145e8a5e9d3b18bb37c1533",
	"worker":   "e04712732dd593a08091ec273f4eea925dc2405cc1b75c0cc2fcc09d03df87dd",
}

// maxTemplateBytes caps an agent definition file.
const maxTemplateBytes = 1 << 20

// readPolicy reads definitions as files the model may have written: a
// project's .grove/agents/worker.md linked to /proc/self/environ, a FIFO
// (which would hang the start) or a link out of the workspace is a
// problem, never read.
func (d Dirs) readPolicy() safefile.ReadPolicy {
	var roots []string
	for _, r := range append([]string{d.Cwd}, safefile.TempDirs()...) {
		if r == "" || !filepath.IsAbs(r) {
			continue
		}
		if real, err := safefile.Resolve(r, false); err == nil {
			roots = append(roots, real)
		}
	}
	return safefile.ReadPolicy{Roots: roots, MaxBytes: maxTemplateBytes}
}

func readTemplate(path string, policy safefile.ReadPolicy) ([]byte, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	return safefile.ReadForModel(abs, policy)
}
