package templates

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// SeedMarker is the file under $GROVE_HOME that records that the built-in
// roles were seeded: seeding happens once, so a user who deletes the
// copies is not given them again.
const SeedMarker = ".agents-seeded"

// SeedUserAgents is seed 002's seed-on-empty, in grove's user agents
// directory ($GROVE_HOME/agents: ~/.codex/.agents is Codex's home, not
// grove's to write): on first run it writes a copy of each built-in role
// template there, never over an existing file, and remembers that it did.
// It returns the files it wrote. An unedited copy still ranks as the
// built-in it is (below ~/.codex/.agents and ~/.claude/agents, see Load);
// an edited one is the user's template.
func SeedUserAgents(groveHome string) ([]string, error) {
	if groveHome == "" {
		return nil, nil
	}
	marker := filepath.Join(groveHome, SeedMarker)
	if _, err := os.Lstat(marker); err == nil {
		return nil, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("seed agents: %w", err)
	}
	dir := filepath.Join(groveHome, "agents")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("seed agents: %w", err)
	}
	var wrote []string
	for _, name := range EmbeddedNames {
		data, err := embedded.ReadFile("agents/" + name + ".md")
		if err != nil {
			return wrote, fmt.Errorf("seed agents: %w", err)
		}
		path := filepath.Join(dir, name+".md")
		// O_EXCL: a file the user has (or a symlink planted there) is
		// never written through or over.
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return wrote, fmt.Errorf("seed agents: %w", err)
		}
		_, werr := f.Write(data)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return wrote, fmt.Errorf("seed agents: write %s: %w", path, werr)
		}
		wrote = append(wrote, path)
	}
	note := "grove seeded the built-in role templates into agents/ once; delete this file to have them seeded again.\n"
	if err := os.WriteFile(marker, []byte(note), 0o644); err != nil {
		return wrote, fmt.Errorf("seed agents: %w", err)
	}
	return wrote, nil
}
