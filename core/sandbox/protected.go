package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ProtectedNames are the directories (or files: a worktree's .git) kept
// read-only at any depth inside every writable root under
// workspace-write: repository metadata and hooks, and the agents' own
// configuration, which a command could otherwise rewrite to run code
// later, unsandboxed (a hook runs as the user the next time they use
// git). The directory a `.git` file names (`gitdir: ...`, a worktree or
// `git init --separate-git-dir`) is protected with it.
//
// `.mcp.json` (Claude Code's project MCP file) is one too: it names
// programs grove starts outside the sandbox (issue 31.3). It is a file, so
// no placeholder stands where it is absent (an empty directory of that
// name would break the tools that read it): a new one is moved aside
// after the command that made it (quarantineNew).
var ProtectedNames = []string{".git", ".grove", ".codex", ".agents", ".claude", ".mcp.json"}

// protectedFiles are the ProtectedNames that are files: bound read-only
// where they exist, never made as placeholders.
var protectedFiles = []string{".mcp.json"}

// maxProtectedScan bounds the entries FindProtected visits in one root; a
// root larger than that fails closed (its protected paths are not known).
const maxProtectedScan = 2_000_000

// protectedPath returns the protected path p (clean, absolute, inside
// root) lies in, or "": an ancestor or p itself named like ProtectedNames
// below root, or a git directory a `.git` file of an ancestor names.
func protectedPath(root, p string) string {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == "." {
		return ""
	}
	cur := root
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		if gd := gitfileTarget(filepath.Join(cur, ".git")); gd != "" && within(gd, p) {
			return gd
		}
		if hp := hooksPath(filepath.Join(cur, ".git")); hp != "" && within(hp, p) {
			return hp
		}
		cur = filepath.Join(cur, part)
		if slices.Contains(ProtectedNames, part) {
			return cur
		}
	}
	return ""
}

// gitfileTarget reads a `.git` file ("gitdir: PATH", relative to the
// file's directory) and returns the directory it names, symlinks
// resolved; "" when path is not such a file.
func gitfileTarget(path string) string {
	st, err := os.Lstat(path)
	if err != nil || !st.Mode().IsRegular() || st.Size() > 4096 {
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	line, _, _ := bufio.NewReader(f).ReadLine()
	dir, ok := strings.CutPrefix(strings.TrimSpace(string(line)), "gitdir:")
	if !ok {
		return ""
	}
	dir = strings.TrimSpace(dir)
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(filepath.Dir(path), dir)
	}
	if real, err := resolve(filepath.Clean(dir)); err == nil {
		return real
	}
	return filepath.Clean(dir)
}

// FindProtected lists every protected path inside root (resolved, clean):
// entries named like ProtectedNames at any depth (not descended into) and
// the git directories `.git` files name. Symlinks are not followed (a
// link is not a place a command can write through to anything but its
// target, which the mounts cover where it is). It fails when root has
// more than maxProtectedScan entries or cannot be read: then nobody knows
// what would stay writable.
func FindProtected(root string) ([]string, error) {
	out, _, err := findProtected(root)
	return out, err
}

// findProtected is FindProtected that also says how many entries it saw.
func findProtected(root string) ([]string, int, error) {
	var out []string
	seen := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			if errors.Is(err, fs.ErrPermission) {
				return nil // unreadable to the user: unwritable to commands too
			}
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed while walking (another program's temp dir)
			}
			return err
		}
		if seen++; seen > maxProtectedScan {
			return fmt.Errorf("more than %d entries", maxProtectedScan)
		}
		if p == root || !slices.Contains(ProtectedNames, d.Name()) {
			return nil
		}
		out = append(out, p)
		if d.Name() == ".git" && d.Type().IsRegular() {
			if gd := gitfileTarget(p); gd != "" {
				out = append(out, gd)
			}
		}
		if d.Name() == ".git" {
			if hp := hooksPath(p); hp != "" {
				out = append(out, hp)
			}
		}
		if d.IsDir() {
			return filepath.SkipDir
		}
		return nil
	})
	if err != nil {
		return nil, seen, fmt.Errorf("find the protected paths (.git, .grove, .codex, .agents, .claude, .mcp.json) in %s: %w", root, err)
	}
	return out, seen, nil
}

// scannedRoots are the roots whose protected paths are looked for: the
// thread's cwd (roots[0], see WritableRoots) and writable_roots, not the
// shared temp directories (/tmp, $TMPDIR), which hold other programs'
// files (walking them costs, and another project's clone there would
// refuse every command on a host without namespaces). apply_patch still
// refuses protected names there.
func scannedRoots(roots []string) []string {
	var temps []string
	for _, t := range AllTempRoots() {
		if real, err := resolve(t); err == nil {
			temps = append(temps, real)
		}
	}
	var out []string
	for i, r := range roots {
		if i > 0 && slices.Contains(temps, r) {
			continue
		}
		out = append(out, r)
	}
	return out
}

// hooksPath returns the existing directory `core.hooksPath` of the
// repository whose `.git` (directory or gitfile) is dotGit names, symlinks
// resolved; "" when unset. Husky and similar tools point it into the
// working tree (`.husky/_`), where it is an ordinary directory: a hook
// planted there runs at the user's next commit (issue 21, fourth pass).
func hooksPath(dotGit string) string {
	dir := dotGit
	if gd := gitfileTarget(dotGit); gd != "" {
		dir = gd
	}
	v := gitConfigValue(filepath.Join(dir, "config"), "core", "hookspath")
	if v == "" {
		return ""
	}
	if strings.HasPrefix(v, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		v = filepath.Join(home, v[2:])
	}
	if !filepath.IsAbs(v) {
		v = filepath.Join(filepath.Dir(dotGit), v) // relative to the working tree
	}
	real, err := resolve(filepath.Clean(v))
	if err != nil {
		return ""
	}
	if st, err := os.Stat(real); err != nil || !st.IsDir() {
		return ""
	}
	return real
}

// gitConfigValue reads key of [section] from a git config file (the last
// one wins, as in git; names case-insensitive, quotes removed). Included
// files and subsections are not followed.
func gitConfigValue(path, section, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	var cur, val string
	sc := bufio.NewScanner(io.LimitReader(f, 1<<20))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			name, _, _ := strings.Cut(strings.Trim(line, "[] \t"), " ")
			cur = strings.ToLower(name)
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if ok && cur == section && strings.EqualFold(strings.TrimSpace(k), key) {
			v = strings.TrimSpace(v)
			if q, _, ok := strings.Cut(strings.TrimPrefix(v, `"`), `"`); ok && strings.HasPrefix(v, `"`) {
				v = q // a comment may follow the quoted value
			} else if c := strings.IndexAny(v, "#;"); c >= 0 {
				v = strings.TrimSpace(v[:c])
			}
			val = v
		}
	}
	return val
}
