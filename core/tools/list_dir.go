package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/tools/schema"
)

const (
	listDefaultDepth = 2
	listMaxDepth     = 10
	listDefaultLimit = 200
)

type listDir struct{}

// listDirArgs are list_dir's arguments; its schema is generated from them.
type listDirArgs struct {
	Path    string `json:"path" jsonschema:"Directory to list: absolute, or relative to the working directory (\".\" for the working directory itself)."`
	DirPath string `json:"dir_path" jsonschema:"Alias of path."`
	Depth   int    `json:"depth" minimum:"1" maximum:"10" jsonschema:"How many levels to show: 1 = only the directory's own entries (default 2)."`
	Offset  int    `json:"offset" minimum:"1" jsonschema:"1-based number of the first entry to return (default 1)."`
	Limit   int    `json:"limit" minimum:"1" jsonschema:"Maximum number of entries to return (default 200)."`
}

// NewListDir returns the list_dir tool.
func NewListDir() Tool { return listDir{} }

func (listDir) Spec() model.ToolSpec {
	return model.ToolSpec{Name: "list_dir", Description: "List the entries of a directory as an indented tree, sorted by name, descending into subdirectories up to depth levels. Directories end in `/`, symlinks in `@`; .git is skipped. Page through big trees with offset and limit.", Parameters: schema.MustObject(listDirArgs{})}
}

func (listDir) Run(ctx context.Context, env *Env, raw json.RawMessage) Result {
	var a listDirArgs
	if err := decode("list_dir", raw, &a); err != nil {
		return Errorf("%v", err)
	}
	p := firstNonEmpty(a.Path, a.DirPath)
	if p == "" {
		return Errorf(`invalid arguments for list_dir: field "path" is required (expected string: the directory to list, "." for the working directory)`)
	}
	if a.Depth <= 0 {
		a.Depth = listDefaultDepth
	}
	a.Depth = min(a.Depth, listMaxDepth)
	a.Offset = max(a.Offset, 1)
	if a.Limit <= 0 {
		a.Limit = listDefaultLimit
	}
	root := resolvePath(env.Cwd, p)
	fsys := env.Backend()
	st, err := fsys.Stat(ctx, root)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Errorf("list_dir: %s: no such directory", p)
	case err != nil:
		return Errorf("list_dir: %v", err)
	case !st.IsDir():
		return Errorf("list_dir: %s is a file, not a directory; use read_file to read it", p)
	}
	// Collect one entry past the page to know whether there are more.
	want := a.Offset - 1 + a.Limit + 1
	var entries []string
	var walk func(dir string, level int) error
	walk = func(dir string, level int) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		des, err := fsys.ReadDir(ctx, dir)
		if err != nil {
			entries = append(entries, strings.Repeat("  ", level)+"[unreadable: "+err.Error()+"]")
			return nil
		}
		for _, d := range des {
			if len(entries) >= want {
				return nil
			}
			if d.Name == ".git" {
				continue
			}
			name := d.Name
			isDir := d.Type.IsDir()
			switch {
			case d.Type&fs.ModeSymlink != 0:
				name += "@"
			case isDir:
				name += "/"
			}
			entries = append(entries, strings.Repeat("  ", level)+name)
			if isDir && level+1 < a.Depth {
				if err := walk(filepath.Join(dir, d.Name), level+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(root, 0); err != nil {
		return Errorf("list_dir: interrupted")
	}
	var out strings.Builder
	fmt.Fprintf(&out, "Absolute path: %s\n", root)
	if len(entries) == 0 {
		out.WriteString("(empty directory)\n")
		return Result{Output: out.String(), Summary: "listed " + p + " (empty)"}
	}
	if a.Offset > len(entries) {
		return Errorf("list_dir: offset %d is past the end: %s has %d entries at depth %d", a.Offset, p, len(entries), a.Depth)
	}
	end := min(a.Offset-1+a.Limit, len(entries))
	for _, e := range entries[a.Offset-1 : end] {
		out.WriteString(e)
		out.WriteByte('\n')
	}
	if len(entries) > end {
		fmt.Fprintf(&out, "More than %d entries found; continue with offset %d\n", end, end+1)
	}
	return Result{Output: out.String(), Summary: fmt.Sprintf("listed %s (%d entries)", p, end-a.Offset+1)}
}
