// Package skills finds Agent Skills (agentskills.io: a directory with a
// SKILL.md whose front matter names it and says when to use it) where
// Codex and Claude Code look, lists them for the model within a budget,
// and loads a skill's body when the user mentions it as $name.
package skills

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/grovecli/grove/core/tools/safefile"
)

// Limits of the Agent Skills standard (also Codex's).
const (
	MaxNameLen        = 64
	MaxDescriptionLen = 1024
)

// Skill is one SKILL.md's metadata; its body stays on disk until used.
type Skill struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Path is the SKILL.md file.
	Path string `json:"path"`
	// Scope is where it was found: repo, user, system.
	Scope string `json:"scope"`
	// policy is how its file is read for the model (safefile).
	policy safefile.ReadPolicy
}

// maxSkillBytes caps a SKILL.md grove reads.
const maxSkillBytes = 1 << 20

type frontMatter struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
}

// Parse reads SKILL.md's front matter. A file without `name` or
// `description` is an error naming the file and the field.
func Parse(path string) (Skill, error) {
	return parseWith(path, safefile.ReadPolicy{MaxBytes: maxSkillBytes})
}

// parseWith is Parse reading through the pinned model read under policy:
// a SKILL.md linked into /proc, a FIFO or a link out of the workspace is
// refused, never read.
func parseWith(path string, policy safefile.ReadPolicy) (Skill, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return Skill{}, fmt.Errorf("read skill %s: %w", path, err)
	}
	data, err := safefile.ReadForModel(abs, policy)
	if err != nil {
		return Skill{}, fmt.Errorf("read skill %s: %w", path, err)
	}
	fm, err := frontMatterOf(data)
	if err != nil {
		return Skill{}, fmt.Errorf("skill %s: %w", path, err)
	}
	var m frontMatter
	if err := yaml.Unmarshal(fm, &m); err != nil {
		return Skill{}, fmt.Errorf("skill %s: front matter: %w", path, err)
	}
	m.Name, m.Description = strings.TrimSpace(m.Name), strings.Join(strings.Fields(m.Description), " ")
	switch {
	case m.Name == "":
		return Skill{}, fmt.Errorf("skill %s: front matter has no name", path)
	case m.Description == "":
		return Skill{}, fmt.Errorf("skill %s: front matter has no description", path)
	case len(m.Name) > MaxNameLen:
		return Skill{}, fmt.Errorf("skill %s: name is %d characters (at most %d)", path, len(m.Name), MaxNameLen)
	case strings.ContainsAny(m.Name, " \t\n$/\\"):
		return Skill{}, fmt.Errorf("skill %s: name %q has spaces, slashes or $", path, m.Name)
	}
	if len(m.Description) > MaxDescriptionLen {
		m.Description = m.Description[:MaxDescriptionLen]
	}
	return Skill{Name: m.Name, Description: m.Description, Path: path, policy: policy}, nil
}

// frontMatterOf returns the YAML between the leading `---` lines (a BOM
// and CRLF line ends are accepted).
func frontMatterOf(data []byte) ([]byte, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	if !bytes.HasPrefix(data, []byte("---\n")) {
		return nil, errors.New("no front matter (the file must start with ---)")
	}
	rest := data[4:]
	end := bytes.Index(rest, []byte("\n---"))
	if end < 0 {
		return nil, errors.New("front matter is not closed by ---")
	}
	return rest[:end], nil
}

// Body returns the skill's SKILL.md as it is now, read again under the
// same policy (the file may have changed since discovery).
func (s Skill) Body() (string, error) {
	policy := s.policy
	if policy.MaxBytes == 0 {
		policy.MaxBytes = maxSkillBytes
	}
	abs, err := filepath.Abs(s.Path)
	if err != nil {
		return "", fmt.Errorf("load skill %s: %w", s.Name, err)
	}
	b, err := safefile.ReadForModel(abs, policy)
	if err != nil {
		return "", fmt.Errorf("load skill %s: %w", s.Name, err)
	}
	return string(b), nil
}
