package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/tools/schema"
)

// claudeLSLimit bounds LS's listing (Claude Code's 1000 entries).
const claudeLSLimit = 1000

// claudeLS is Claude Code's earlier LS tool (dropped from its tool list in
// favour of Glob and ls through Bash), kept unlisted for models that still
// call it.
type claudeLS struct{}

type claudeLSArgs struct {
	Path   string   `json:"path" required:"true" jsonschema:"The absolute path to the directory to list (must be absolute, not relative)"`
	Ignore []string `json:"ignore" jsonschema:"List of glob patterns to ignore"`
}

func (claudeLS) Spec() model.ToolSpec {
	return model.ToolSpec{Name: claudeLSName, Description: "Lists files and directories in a given path.", Parameters: schema.MustObject(claudeLSArgs{})}
}

// Run lists the tree beneath path as Claude Code's LS printed it: an
// indented list, directories ending in /.
func (claudeLS) Run(ctx context.Context, env *Env, raw json.RawMessage) Result {
	var a claudeLSArgs
	if err := decode(claudeLSName, raw, &a); err != nil {
		return Errorf("%v", err)
	}
	root := resolvePath(env.Cwd, a.Path)
	fsys := env.Backend()
	st, err := fsys.Stat(ctx, root)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Errorf("Directory does not exist: %s", root)
	case err != nil:
		return Errorf("LS: %v", err)
	case !st.IsDir():
		return Errorf("Path is not a directory: %s", root)
	}
	list, err := fsys.Walk(ctx, root, claudeLSLimit)
	if err != nil {
		return Errorf("LS: %v", err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "- %s/\n", strings.TrimSuffix(root, "/"))
	shownDirs := map[string]bool{}
	for _, f := range list.Files {
		if ignored(a.Ignore, f.Rel) || hiddenPath(f.Rel) {
			continue
		}
		parts := strings.Split(f.Rel, "/")
		for i := range len(parts) - 1 {
			d := strings.Join(parts[:i+1], "/")
			if !shownDirs[d] {
				shownDirs[d] = true
				fmt.Fprintf(&b, "%s- %s/\n", strings.Repeat("  ", i+1), parts[i])
			}
		}
		fmt.Fprintf(&b, "%s- %s\n", strings.Repeat("  ", len(parts)), parts[len(parts)-1])
	}
	if list.Truncated {
		fmt.Fprintf(&b, "There are more than %d files in the directory. Use more specific paths to explore nested directories. The first %d files are included above.\n", claudeLSLimit, claudeLSLimit)
	}
	return Result{Output: strings.TrimRight(b.String(), "\n"), Summary: "listed " + root}
}

// ignored reports whether rel or one of its directories matches a glob.
func ignored(globs []string, rel string) bool {
	for _, g := range globs {
		for p := rel; p != "." && p != ""; p = path.Dir(p) {
			if ok, _ := doublestar.Match(g, p); ok {
				return true
			}
			if ok, _ := doublestar.Match(g, path.Base(p)); ok {
				return true
			}
		}
	}
	return false
}
