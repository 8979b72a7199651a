package tools

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/grovecli/grove/core/execenv"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/tools/schema"
)

// claudeGlobLimit is how many paths Glob returns (Claude Code's 100).
const claudeGlobLimit = 100

type claudeGlob struct{}

// claudeGlobArgs are Glob's arguments (Claude Code's names).
type claudeGlobArgs struct {
	Pattern string `json:"pattern" required:"true" jsonschema:"The glob pattern to match files against"`
	Path    string `json:"path" jsonschema:"The directory to search in. If not specified, the current working directory will be used. IMPORTANT: Omit this field to use the default directory. DO NOT enter \"undefined\" or \"null\" - simply omit it for the default behavior. Must be a valid directory path if provided."`
}

const claudeGlobDesc = `- Fast file pattern matching tool that works with any codebase size
- Supports glob patterns like "**/*.js" or "src/**/*.ts"
- Returns matching file paths sorted by modification time
- Use this tool when you need to find files by name patterns
- At most 100 paths are returned; narrow the pattern or path for more`

func (claudeGlob) Spec() model.ToolSpec {
	return model.ToolSpec{Name: ClaudeGlob, Description: claudeGlobDesc, Parameters: schema.MustObject(claudeGlobArgs{})}
}

// datedPath is a match with its modification time.
type datedPath struct {
	path string
	mod  time.Time
}

func (claudeGlob) Run(ctx context.Context, env *Env, raw json.RawMessage) Result {
	return runGlob(ctx, env, ClaudeGlob, raw)
}

// runGlob is Glob's work under the name it was called by (Glob, or seed
// 004's glob_files), which its errors name.
func runGlob(ctx context.Context, env *Env, name string, raw json.RawMessage) Result {
	var a claudeGlobArgs
	if err := decode(name, raw, &a); err != nil {
		return Errorf("%v", err)
	}
	pattern := strings.TrimPrefix(strings.TrimSpace(a.Pattern), "./")
	if pattern == "" {
		return Errorf(`invalid arguments for %s: field "pattern" must not be empty`, name)
	}
	root := resolvePath(env.Cwd, a.Path)
	if filepath.IsAbs(pattern) {
		// An absolute pattern names its own directory.
		base, rest := doublestar.SplitPattern(filepath.ToSlash(pattern))
		root, pattern = filepath.FromSlash(base), rest
	}
	if !doublestar.ValidatePattern(pattern) {
		return Errorf("%s: %q is not a valid glob pattern", name, a.Pattern)
	}
	fsys := env.Backend()
	st, err := fsys.Stat(ctx, root)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Errorf("Directory does not exist: %s", root)
	case err != nil:
		return Errorf("%s: %v", name, err)
	case !st.IsDir():
		return Errorf("Path is not a directory: %s", root)
	}
	found, truncated, err := globFiles(ctx, fsys, root, pattern, globFilterFromEnv())
	if err != nil {
		return Errorf("%s: %v", name, err)
	}
	if len(found) == 0 {
		return Result{Output: "No files found", Summary: "no files match " + a.Pattern}
	}
	if name == ClaudeGlob {
		sortOldestFirst(found)
	}
	shown := found[:min(len(found), claudeGlobLimit)]
	lines := make([]string, len(shown))
	for i, f := range shown {
		lines[i] = f.path
	}
	out := strings.Join(lines, "\n")
	if truncated || len(found) > claudeGlobLimit {
		out += "\n(Results are truncated. Consider using a more specific path or pattern.)"
	}
	return Result{Output: out, Summary: fmt.Sprintf("%d files match %s", len(found), a.Pattern)}
}

// globFiles lists the files beneath root matching pattern (relative to
// root) that filter keeps, newest first; truncated when the tree was too
// large to list.
func globFiles(ctx context.Context, fsys execenv.FileSystem, root, pattern string, filter globFilter) ([]datedPath, bool, error) {
	list, err := fsys.Walk(ctx, root, grepMaxFiles)
	if err != nil {
		return nil, false, err
	}
	var ignore *ignoreFilter
	if filter.respectIgnore {
		ignore = newIgnoreFilter(ctx, fsys, root, list.Files)
	}
	var found []datedPath
	for _, f := range list.Files {
		if ok, _ := doublestar.Match(pattern, f.Rel); !ok {
			continue
		}
		if (filter.skipHidden && hiddenPath(f.Rel)) || ignore.ignored(f.Rel) {
			continue
		}
		p := filepath.Join(root, filepath.FromSlash(f.Rel))
		d := datedPath{path: p}
		if st, err := fsys.Stat(ctx, p); err == nil {
			d.mod = st.ModTime
		}
		found = append(found, d)
		if ctx.Err() != nil {
			return nil, false, ctx.Err()
		}
	}
	sortNewestFirst(found)
	return found, list.Truncated, nil
}

// sortOldestFirst orders paths by modification time, oldest first, then
// by name: Claude Code's Glob lists with `rg --files --sort=modified`
// (its src/utils/glob.ts), and ripgrep's --sort sorts "in ascending order
// where as for --sortr, results are sorted in descending order" (ripgrep
// commit 40e310a, "add --sort and --sortr flags"); with more than 100
// matches the 100 oldest are the ones shown. glob_files keeps its own
// newest-first promise.
func sortOldestFirst(ps []datedPath) {
	slices.SortStableFunc(ps, func(a, b datedPath) int {
		return cmp.Or(a.mod.Compare(b.mod), strings.Compare(a.path, b.path))
	})
}

// sortNewestFirst orders paths by modification time, newest first, then
// by name.
func sortNewestFirst(ps []datedPath) {
	slices.SortStableFunc(ps, func(a, b datedPath) int {
		return cmp.Or(b.mod.Compare(a.mod), strings.Compare(a.path, b.path))
	})
}
