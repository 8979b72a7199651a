package tools

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/grovecli/grove/core/execenv"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/tools/schema"
)

const (
	grepDefaultLimit = 100
	grepMaxLimit     = 2000
	grepMaxFileSize  = 4 << 20
	grepMaxLineLen   = 300 // characters shown of a matching line
	grepMaxWorkers   = 4
)

type grepFiles struct{}

// NewGrepFiles returns the grep_files tool.
func NewGrepFiles() Tool { return grepFiles{} }

func (grepFiles) Spec() model.ToolSpec {
	return model.ToolSpec{Name: "grep_files", Description: "Search the contents of files with a regular expression (Go RE2 syntax: no backreferences or lookaround). Returns matching lines as `path:line: text`, paths relative to the searched directory, sorted by path and line. Skips .git, binary files and files over 4 MiB. Narrow the search with include globs.", Parameters: schema.MustObject(grepArgs{})}
}

// grepArgs are grep_files's arguments; its schema is generated from them.
type grepArgs struct {
	Pattern         string          `json:"pattern" required:"true" jsonschema:"RE2 regular expression matched against each line."`
	Path            string          `json:"path" jsonschema:"Directory or file to search: absolute, or relative to the working directory (default: the working directory)."`
	Include         json.RawMessage `json:"include" schema:"{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"array\",\"items\":{\"type\":\"string\"}}]}" jsonschema:"Glob, or list of globs, of the files to search, relative to path; ** crosses directories (\"**/*.go\"); a glob without / also matches base names (\"*.go\")."`
	CaseInsensitive bool            `json:"case_insensitive" jsonschema:"Match regardless of case (default false)."`
	Limit           int             `json:"limit" minimum:"1" maximum:"2000" jsonschema:"Maximum number of matching lines to return (default 100)."`
}

type grepMatch struct {
	path string
	line int
	text string
}

func (grepFiles) Run(ctx context.Context, env *Env, raw json.RawMessage) Result {
	var a grepArgs
	if err := decode("grep_files", raw, &a); err != nil {
		return Errorf("%v", err)
	}
	if a.Pattern == "" {
		return Errorf(`invalid arguments for grep_files: field "pattern" must not be empty`)
	}
	include, err := includeGlobs(a.Include)
	if err != nil {
		return Errorf("%v", err)
	}
	if a.Limit <= 0 {
		a.Limit = grepDefaultLimit
	}
	a.Limit = min(a.Limit, grepMaxLimit)
	expr := a.Pattern
	if a.CaseInsensitive {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return Errorf("grep_files: invalid pattern %q: %v", a.Pattern, err)
	}
	root := resolvePath(env.Cwd, a.Path)
	fsys := env.Backend()
	st, err := fsys.Stat(ctx, root)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Errorf("grep_files: %s: no such file or directory", firstNonEmpty(a.Path, root))
	case err != nil:
		return Errorf("grep_files: %v", err)
	}
	g := &grep{re: re, limit: a.Limit, fs: fsys}
	if st.IsDir() {
		err = g.searchTree(ctx, root, include)
	} else {
		g.add(g.searchFile(ctx, root, filepath.Base(root)))
	}
	if err != nil {
		return Errorf("grep_files: %v", err)
	}
	g.trim()
	if g.total == 0 {
		return Result{Output: "No matches found.", Summary: "no matches for " + a.Pattern}
	}
	var out strings.Builder
	for _, m := range g.matches {
		fmt.Fprintf(&out, "%s:%d: %s\n", m.path, m.line, m.text)
	}
	if more := g.total - len(g.matches); more > 0 {
		fmt.Fprintf(&out, "… %d more matches not shown (raise limit or narrow the pattern, path or include)\n", more)
	}
	if g.note != "" {
		out.WriteString(g.note + "\n")
	}
	return Result{Output: out.String(), Summary: fmt.Sprintf("%d matches for %s", g.total, a.Pattern)}
}

// includeGlobs decodes include (a glob or a list) and validates it.
func includeGlobs(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var globs []string
	var one string
	if json.Unmarshal(raw, &one) == nil {
		globs = []string{one}
	} else if err := json.Unmarshal(raw, &globs); err != nil {
		return nil, fmt.Errorf(`invalid arguments for grep_files: field "include": expected a glob or a list of globs`)
	}
	out := globs[:0]
	for _, g := range globs {
		g = strings.TrimPrefix(strings.TrimSpace(g), "./")
		if g == "" {
			continue
		}
		if !doublestar.ValidatePattern(g) {
			return nil, fmt.Errorf("grep_files: include %q is not a valid glob", g)
		}
		out = append(out, g)
	}
	return out, nil
}

func included(globs []string, rel, base string) bool {
	if len(globs) == 0 {
		return true
	}
	for _, g := range globs {
		if ok, _ := doublestar.Match(g, rel); ok {
			return true
		}
		if !strings.Contains(g, "/") {
			if ok, _ := doublestar.Match(g, base); ok {
				return true
			}
		}
	}
	return false
}

// grep collects matches, keeping only the first limit by (path, line).
type grep struct {
	fs      execenv.FileSystem
	note    string // said after the matches
	re      *regexp.Regexp
	limit   int
	matches []grepMatch
	total   int
}

func (g *grep) add(ms []grepMatch, n int) {
	g.total += n
	g.matches = append(g.matches, ms...)
	if len(g.matches) > 2*g.limit {
		g.trim()
	}
}

func (g *grep) trim() {
	slices.SortFunc(g.matches, func(a, b grepMatch) int {
		return cmp.Or(strings.Compare(a.path, b.path), cmp.Compare(a.line, b.line))
	})
	if len(g.matches) > g.limit {
		g.matches = g.matches[:g.limit]
	}
}

type grepJob struct{ path, rel string }

type grepResult struct {
	matches []grepMatch
	n       int
}

// grepMaxFiles bounds the files one search considers.
const grepMaxFiles = 200_000

// searchTree lists root's files and searches them on a small worker pool.
// Every goroutine it starts has ended when it returns.
func (g *grep) searchTree(ctx context.Context, root string, include []string) error {
	list, err := g.fs.Walk(ctx, root, grepMaxFiles)
	if err != nil {
		if ctx.Err() != nil {
			return errors.New("interrupted")
		}
		return err
	}
	if list.Truncated {
		g.note = fmt.Sprintf("(only the first %d files under %s were searched; narrow path)", grepMaxFiles, root)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan grepJob)
	results := make(chan grepResult)
	var workers sync.WaitGroup
	for range min(grepMaxWorkers, max(1, runtime.GOMAXPROCS(0))) {
		workers.Go(func() {
			for j := range jobs {
				ms, n := g.searchFile(ctx, j.path, j.rel)
				if n == 0 {
					continue
				}
				select {
				case results <- grepResult{ms, n}:
				case <-ctx.Done():
					return
				}
			}
		})
	}
	go func() {
		defer close(jobs)
		for _, f := range list.Files {
			if f.Size > grepMaxFileSize || !included(include, f.Rel, path.Base(f.Rel)) {
				continue
			}
			select {
			case jobs <- grepJob{filepath.Join(root, filepath.FromSlash(f.Rel)), f.Rel}:
			case <-ctx.Done():
				return
			}
		}
	}()
	done := make(chan struct{})
	go func() {
		workers.Wait()
		close(done)
	}()
	for collecting := true; collecting; {
		select {
		case r := <-results:
			g.add(r.matches, r.n)
		case <-done:
			collecting = false
		}
	}
	if ctx.Err() != nil {
		return errors.New("interrupted")
	}
	return nil
}

// searchFile returns up to limit matching lines of one file and how many
// lines matched in all. Binary files (a NUL in the first bytes) count as
// no match.
func (g *grep) searchFile(ctx context.Context, path, rel string) ([]grepMatch, int) {
	f, err := g.fs.Open(ctx, path)
	if err != nil {
		return nil, 0
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	if head, _ := br.Peek(binarySniffLen); bytes.IndexByte(head, 0) >= 0 {
		return nil, 0
	}
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 0, 64<<10), grepMaxFileSize+1)
	var out []grepMatch
	n, line := 0, 0
	for sc.Scan() {
		line++
		if line%4096 == 0 && ctx.Err() != nil {
			return out, n
		}
		b := bytes.TrimRight(sc.Bytes(), "\r")
		if !g.re.Match(b) {
			continue
		}
		n++
		if len(out) < g.limit {
			out = append(out, grepMatch{rel, line, clipMatch(b)})
		}
	}
	return out, n
}

func clipMatch(b []byte) string {
	if utf8.RuneCount(b) <= grepMaxLineLen {
		return string(b)
	}
	return string([]rune(string(b))[:grepMaxLineLen]) + "…"
}
