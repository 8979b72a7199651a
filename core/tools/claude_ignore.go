package tools

import (
	"bufio"
	"bytes"
	"context"
	"path"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/grovecli/grove/core/execenv"
)

// ignoreFileMax bounds an ignore file grove reads (a larger one is skipped).
const ignoreFileMax = 1 << 20

// ignoreFiles are the per-directory ignore files ripgrep honours, lowest
// priority first: .gitignore (only inside a git repository), then .ignore
// and .rgignore (everywhere).
var ignoreFiles = []string{".gitignore", ".ignore", ".rgignore"}

// ignoreFilter is what ripgrep would skip beneath one searched directory:
// the patterns of the ignore files in it, in its parents up to the
// repository's top, and in .git/info/exclude. The user's global excludes
// file (core.excludesFile) is not read.
type ignoreFilter struct {
	matcher gitignore.Matcher
	// prefix is the searched directory's path from the matching base (the
	// repository's top, else the searched directory itself).
	prefix []string
}

// newIgnoreFilter reads the ignore files that govern the files beneath root,
// listed (relative to root) in walked.
func newIgnoreFilter(ctx context.Context, fsys execenv.FileSystem, root string, walked []execenv.WalkFile) *ignoreFilter {
	base, inRepo := repoTop(ctx, fsys, root)
	f := &ignoreFilter{}
	if rel, err := filepath.Rel(base, root); err == nil && rel != "." {
		f.prefix = strings.Split(filepath.ToSlash(rel), "/")
	}
	var ps []gitignore.Pattern
	if inRepo {
		ps = readIgnorePatterns(ctx, fsys, filepath.Join(base, ".git", "info", "exclude"), nil)
	}
	// The parents between the repository's top and root, shallowest first.
	for i := 0; i <= len(f.prefix)-1; i++ {
		dir := f.prefix[:i]
		for _, name := range ignoreFiles {
			if name == ".gitignore" && !inRepo {
				continue
			}
			ps = append(ps, readIgnorePatterns(ctx, fsys, filepath.Join(base, filepath.Join(dir...), name), dir)...)
		}
	}
	// The ignore files beneath root, shallower directories first (a
	// deeper file's patterns take precedence); Walk lists in lexical order,
	// so order by depth, keeping each directory's files in ignoreFiles order.
	for _, file := range ignoreFilesBeneath(walked, inRepo) {
		dir := append(append([]string(nil), f.prefix...), splitDir(path.Dir(file))...)
		ps = append(ps, readIgnorePatterns(ctx, fsys, filepath.Join(root, filepath.FromSlash(file)), dir)...)
	}
	if len(ps) == 0 {
		return nil
	}
	f.matcher = gitignore.NewMatcher(ps)
	return f
}

// ignored reports whether the file at rel (slash-separated, relative to the
// searched directory) is ignored: it, or a directory it is in, matches.
// As in git, a file inside an ignored directory cannot be re-included.
func (f *ignoreFilter) ignored(rel string) bool {
	if f == nil {
		return false
	}
	parts := append(append([]string(nil), f.prefix...), strings.Split(rel, "/")...)
	for i := len(f.prefix) + 1; i < len(parts); i++ {
		if f.matcher.Match(parts[:i], true) {
			return true
		}
	}
	return f.matcher.Match(parts, false)
}

// repoTop finds the git repository root contains: the nearest directory at
// or above root holding .git; else root itself and false.
func repoTop(ctx context.Context, fsys execenv.FileSystem, root string) (string, bool) {
	for dir := filepath.Clean(root); ; {
		if _, err := fsys.Stat(ctx, filepath.Join(dir, ".git")); err == nil {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return filepath.Clean(root), false
		}
		dir = parent
	}
}

// ignoreFilesBeneath picks the ignore files out of a walk, shallowest
// directory first.
func ignoreFilesBeneath(walked []execenv.WalkFile, inRepo bool) []string {
	byDepth := map[int][]string{}
	deepest := 0
	for _, name := range ignoreFiles {
		if name == ".gitignore" && !inRepo {
			continue
		}
		for _, w := range walked {
			if path.Base(w.Rel) != name || w.Size > ignoreFileMax {
				continue
			}
			d := strings.Count(w.Rel, "/")
			byDepth[d] = append(byDepth[d], w.Rel)
			deepest = max(deepest, d)
		}
	}
	var out []string
	for d := 0; d <= deepest; d++ {
		out = append(out, byDepth[d]...)
	}
	return out
}

func splitDir(dir string) []string {
	if dir == "." || dir == "" {
		return nil
	}
	return strings.Split(dir, "/")
}

// readIgnorePatterns parses one ignore file whose patterns apply beneath
// domain; a missing or unreadable file has none.
func readIgnorePatterns(ctx context.Context, fsys execenv.FileSystem, file string, domain []string) []gitignore.Pattern {
	st, err := fsys.Stat(ctx, file)
	if err != nil || st.IsDir() || st.Size > ignoreFileMax {
		return nil
	}
	data, err := readAllFrom(ctx, fsys, file, st.Size)
	if err != nil {
		return nil
	}
	var ps []gitignore.Pattern
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}
