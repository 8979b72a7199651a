package tools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/grovecli/grove/core/model"
)

const (
	grepDefaultLimit = 100
	grepMaxLimit     = 2000
	grepMaxFileSize  = 4 << 20
)

type grepFiles struct{}

// NewGrepFiles returns the grep_files tool.
func NewGrepFiles() Tool { return grepFiles{} }

func (grepFiles) Spec() model.ToolSpec {
	return model.ToolSpec{Name: "grep_files", Description: "Search file contents with a regular expression (RE2 syntax). Returns `path:line: text` matches, sorted; skips .git, binary and very large files.", Parameters: json.RawMessage(`{"type":"object","properties":{
"pattern":{"type":"string","description":"RE2 regular expression."},
"path":{"type":"string","description":"Directory or file to search (default: the working directory)."},
"include":{"description":"Glob(s) of files to search, relative to path; ** matches directories (e.g. \"**/*.go\").","anyOf":[{"type":"string"},{"type":"array","items":{"type":"string"}}]},
"case_insensitive":{"type":"boolean"},
"limit":{"type":"integer","minimum":1,"maximum":2000,"description":"Maximum matches (default 100)."}
},"required":["pattern"],"additionalProperties":false}`)}
}

func (grepFiles) Run(ctx context.Context, env *Env, raw json.RawMessage) Result {
	var a struct {
		Pattern         string          `json:"pattern"`
		Path            string          `json:"path"`
		Include         json.RawMessage `json:"include"`
		CaseInsensitive bool            `json:"case_insensitive"`
		Limit           int             `json:"limit"`
	}
	if err := decode("grep_files", raw, &a); err != nil {
		return Errorf("%v", err)
	}
	var include []string
	if len(a.Include) > 0 {
		var one string
		if json.Unmarshal(a.Include, &one) == nil {
			include = []string{one}
		} else {
			_ = json.Unmarshal(a.Include, &include)
		}
	}
	for _, g := range include {
		if !doublestar.ValidatePattern(g) {
			return Errorf("grep_files: include %q is not a valid glob", g)
		}
	}
	if a.Limit == 0 {
		a.Limit = grepDefaultLimit
	}
	a.Limit = min(a.Limit, grepMaxLimit)
	expr := a.Pattern
	if a.CaseInsensitive {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return Errorf("grep_files: invalid pattern: %v", err)
	}
	root := resolvePath(env.Cwd, a.Path)
	st, err := os.Stat(root)
	if err != nil {
		return Errorf("grep_files: %v", err)
	}
	type match struct {
		path string
		line int
		text string
	}
	var matches []match
	total := 0
	searchFile := func(path, rel string) {
		f, err := os.Open(path)
		if err != nil {
			return
		}
		defer f.Close()
		br := bufio.NewReaderSize(f, 64<<10)
		if head, _ := br.Peek(8000); bytes.IndexByte(head, 0) >= 0 {
			return
		}
		n := 0
		for {
			b, err := br.ReadBytes('\n')
			if len(b) > 0 {
				n++
				line := bytes.TrimRight(b, "\r\n")
				if re.Match(line) {
					total++
					if len(matches) < a.Limit {
						text := string(line)
						if len(text) > 300 {
							text = text[:300] + "…"
						}
						matches = append(matches, match{rel, n, text})
					}
				}
			}
			if err != nil {
				return
			}
		}
	}
	if !st.IsDir() {
		searchFile(root, filepath.Base(root))
	} else {
		err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if err != nil {
				return nil
			}
			if d.IsDir() {
				if d.Name() == ".git" {
					return filepath.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() {
				return nil
			}
			rel, _ := filepath.Rel(root, path)
			rel = filepath.ToSlash(rel)
			if len(include) > 0 {
				ok := false
				for _, g := range include {
					if m, _ := doublestar.Match(g, rel); m {
						ok = true
						break
					}
					if m, _ := doublestar.Match(g, d.Name()); m && !strings.Contains(g, "/") {
						ok = true
						break
					}
				}
				if !ok {
					return nil
				}
			}
			if info, err := d.Info(); err != nil || info.Size() > grepMaxFileSize {
				return nil
			}
			searchFile(path, rel)
			return nil
		})
		if err != nil && ctx.Err() != nil {
			return Errorf("grep_files: cancelled")
		}
	}
	sort.Slice(matches, func(i, j int) bool {
		if matches[i].path != matches[j].path {
			return matches[i].path < matches[j].path
		}
		return matches[i].line < matches[j].line
	})
	if total == 0 {
		return Result{Output: "No matches found.", Summary: "no matches for " + a.Pattern}
	}
	var out strings.Builder
	for _, m := range matches {
		fmt.Fprintf(&out, "%s:%d: %s\n", m.path, m.line, m.text)
	}
	if total > len(matches) {
		fmt.Fprintf(&out, "… %d more matches not shown (raise limit or narrow the pattern)\n", total-len(matches))
	}
	return Result{Output: out.String(), Summary: fmt.Sprintf("%d matches for %s", total, a.Pattern)}
}
