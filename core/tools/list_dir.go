package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/grovecli/grove/core/model"
)

type listDir struct{}

// NewListDir returns the list_dir tool.
func NewListDir() Tool { return listDir{} }

func (listDir) Spec() model.ToolSpec {
	return model.ToolSpec{Name: "list_dir", Description: "List a directory tree (skips .git). Directories end in /, symlinks in @.", Parameters: json.RawMessage(`{"type":"object","properties":{
"path":{"type":"string","description":"Directory (absolute or relative; default: the working directory)."},
"dir_path":{"type":"string","description":"Alias of path."},
"depth":{"type":"integer","minimum":1,"maximum":10,"description":"How deep to descend (default 2)."},
"offset":{"type":"integer","minimum":1,"description":"1-based first entry (default 1)."},
"limit":{"type":"integer","minimum":1,"description":"Maximum entries (default 200)."}
},"additionalProperties":false}`)}
}

func (listDir) Run(ctx context.Context, env *Env, raw json.RawMessage) Result {
	var a struct {
		Path    string `json:"path"`
		DirPath string `json:"dir_path"`
		Depth   int    `json:"depth"`
		Offset  int    `json:"offset"`
		Limit   int    `json:"limit"`
	}
	if err := decode("list_dir", raw, &a); err != nil {
		return Errorf("%v", err)
	}
	p := a.Path
	if p == "" {
		p = a.DirPath
	}
	if a.Depth == 0 {
		a.Depth = 2
	}
	if a.Offset == 0 {
		a.Offset = 1
	}
	if a.Limit == 0 {
		a.Limit = 200
	}
	root := resolvePath(env.Cwd, p)
	st, err := os.Stat(root)
	if err != nil {
		return Errorf("list_dir: %v", err)
	}
	if !st.IsDir() {
		return Errorf("list_dir: %s is not a directory; use read_file", p)
	}
	var entries []string
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		if ctx.Err() != nil {
			return
		}
		des, err := os.ReadDir(dir)
		if err != nil {
			entries = append(entries, strings.Repeat("  ", depth)+"[unreadable: "+err.Error()+"]")
			return
		}
		sort.Slice(des, func(i, j int) bool { return des[i].Name() < des[j].Name() })
		for _, d := range des {
			if d.Name() == ".git" {
				continue
			}
			name := d.Name()
			switch {
			case d.Type()&os.ModeSymlink != 0:
				name += "@"
			case d.IsDir():
				name += "/"
			}
			entries = append(entries, strings.Repeat("  ", depth)+name)
			if d.IsDir() && depth+1 < a.Depth {
				walk(filepath.Join(dir, d.Name()), depth+1)
			}
		}
	}
	walk(root, 0)
	var out strings.Builder
	fmt.Fprintf(&out, "Absolute path: %s\n", root)
	start := min(a.Offset-1, len(entries))
	end := min(start+a.Limit, len(entries))
	for _, e := range entries[start:end] {
		out.WriteString(e)
		out.WriteByte('\n')
	}
	if end < len(entries) {
		fmt.Fprintf(&out, "More than %d entries found; continue with offset %d\n", a.Limit, end+1)
	}
	return Result{Output: out.String(), Summary: fmt.Sprintf("listed %s (%d entries)", p, len(entries))}
}
