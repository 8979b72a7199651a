package tools

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/grovecli/grove/core/execenv"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/tools/schema"
)

// claudeGrepMaxOutput bounds Grep's answer (as Bash's).
const claudeGrepMaxOutput = 30000

type claudeGrep struct{}

// claudeGrepArgs are Grep's arguments (Claude Code's names).
type claudeGrepArgs struct {
	Pattern    string `json:"pattern" required:"true" jsonschema:"The regular expression pattern to search for in file contents"`
	Path       string `json:"path" jsonschema:"File or directory to search in (rg PATH). Defaults to current working directory."`
	Glob       string `json:"glob" jsonschema:"Glob pattern to filter files (e.g. \"*.js\", \"*.{ts,tsx}\") - maps to rg --glob"`
	OutputMode string `json:"output_mode" enum:"content,files_with_matches,count" jsonschema:"Output mode: \"content\" shows matching lines (supports -A/-B/-C context, -n line numbers, head_limit), \"files_with_matches\" shows file paths (supports head_limit), \"count\" shows match counts (supports head_limit). Defaults to \"files_with_matches\"."`
	B          *int   `json:"-B" minimum:"0" jsonschema:"Number of lines to show before each match (rg -B). Requires output_mode: \"content\", ignored otherwise."`
	A          *int   `json:"-A" minimum:"0" jsonschema:"Number of lines to show after each match (rg -A). Requires output_mode: \"content\", ignored otherwise."`
	C          *int   `json:"-C" minimum:"0" jsonschema:"Number of lines to show before and after each match (rg -C). Requires output_mode: \"content\", ignored otherwise."`
	N          *bool  `json:"-n" jsonschema:"Show line numbers in output (rg -n). Requires output_mode: \"content\", ignored otherwise. Defaults to true."`
	I          bool   `json:"-i" jsonschema:"Case insensitive search (rg -i)"`
	Type       string `json:"type" jsonschema:"File type to search (rg --type). Common types: js, py, rust, go, java, etc. More efficient than include for standard file types."`
	HeadLimit  *int   `json:"head_limit" minimum:"0" jsonschema:"Limit output to first N lines/entries, equivalent to \"| head -N\". Works across all output modes: content (limits output lines), files_with_matches (limits file paths), count (limits count entries). Defaults to 250 when unspecified. Pass 0 for unlimited (use sparingly — large result sets waste context)."`
	Offset     *int   `json:"offset" minimum:"0" jsonschema:"Skip first N lines/entries before applying head_limit, equivalent to \"| tail -n +N | head -N\". Works across all output modes. Defaults to 0."`
	Multiline  bool   `json:"multiline" jsonschema:"Enable multiline mode where . matches newlines and patterns can span lines (rg -U --multiline-dotall). Default: false."`
}

const claudeGrepDesc = `A powerful search tool with ripgrep semantics.

Usage:
- ALWAYS use Grep for search tasks. NEVER invoke ` + "`grep` or `rg`" + ` as a Bash command.
- Supports regular expression syntax (e.g., "log.*Error", "function\\s+\\w+"); grove matches with Go's RE2 engine, which accepts ripgrep's syntax except backreferences and look-around
- Filter files with glob parameter (e.g., "*.js", "**/*.tsx") or type parameter (e.g., "js", "py", "rust")
- Output modes: "content" shows matching lines, "files_with_matches" shows only file paths (default), "count" shows match counts
- Pattern syntax: literal braces need escaping (use ` + "`interface\\{\\}`" + ` to find ` + "`interface{}`" + ` in Go code)
- Multiline matching: By default patterns match within single lines only. For cross-line patterns, use ` + "`multiline: true`" + `
- Like ripgrep, hidden files and directories, binary files, and files ignored by .gitignore, .ignore or .rgignore are skipped (a file named in path is always searched)`

func (claudeGrep) Spec() model.ToolSpec {
	return model.ToolSpec{Name: ClaudeGrep, Description: claudeGrepDesc, Parameters: schema.MustObject(claudeGrepArgs{})}
}

// grepFile is one searched file's findings.
type grepFile struct {
	path  string
	lines []string // content mode: the output lines, context included
	count int
	mod   datedPath
}

func (claudeGrep) Run(ctx context.Context, env *Env, raw json.RawMessage) Result {
	var a claudeGrepArgs
	if err := decode(ClaudeGrep, raw, &a); err != nil {
		return Errorf("%v", err)
	}
	re, err := a.regexp()
	if err != nil {
		return Errorf("Grep: %v", err)
	}
	filter, err := a.fileFilter()
	if err != nil {
		return Errorf("Grep: %v", err)
	}
	root := resolvePath(env.Cwd, a.Path)
	fsys := env.Backend()
	st, err := fsys.Stat(ctx, root)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Errorf("Path does not exist: %s", root)
	case err != nil:
		return Errorf("Grep: %v", err)
	}
	s := &grepSearch{args: a, re: re, fs: fsys}
	var files []grepFile
	if st.IsDir() {
		files, err = s.tree(ctx, root, filter)
	} else if f, ok := s.file(ctx, root, false); ok {
		files = []grepFile{f}
	}
	if err != nil {
		return Errorf("Grep: %v", err)
	}
	return s.answer(files)
}

// regexp compiles the pattern with Grep's flags.
func (a claudeGrepArgs) regexp() (*regexp.Regexp, error) {
	if a.Pattern == "" {
		return nil, errors.New(`field "pattern" must not be empty`)
	}
	flags := "(?m)"
	if a.I {
		flags = "(?mi)"
	}
	if a.Multiline {
		flags = strings.Replace(flags, ")", "s)", 1)
	}
	re, err := regexp.Compile(flags + a.Pattern)
	if err != nil {
		return nil, fmt.Errorf("regex parse error: %v", err)
	}
	return re, nil
}

// fileFilter is the glob and type restriction as a predicate on a path
// relative to the searched directory.
func (a claudeGrepArgs) fileFilter() (func(rel string) bool, error) {
	var globs []string
	for _, g := range strings.Fields(a.Glob) {
		if !doublestar.ValidatePattern(g) {
			return nil, fmt.Errorf("glob %q is not valid", g)
		}
		globs = append(globs, g)
	}
	var typeGlobs []string
	if a.Type != "" {
		tg, ok := rgTypes[a.Type]
		if !ok {
			return nil, fmt.Errorf("unrecognized file type: %s", a.Type)
		}
		typeGlobs = tg
	}
	return func(rel string) bool {
		base := path.Base(rel)
		return (len(globs) == 0 || included(globs, rel, base)) && (typeGlobs == nil || included(typeGlobs, rel, base))
	}, nil
}

// hiddenPath reports whether a path relative to the searched directory
// goes through a hidden file or directory, which ripgrep skips.
func hiddenPath(rel string) bool {
	for _, part := range strings.Split(rel, "/") {
		if strings.HasPrefix(part, ".") && part != "." && part != ".." {
			return true
		}
	}
	return false
}

// grepSearch is one Grep call's search.
type grepSearch struct {
	args claudeGrepArgs
	re   *regexp.Regexp
	fs   execenv.FileSystem
}

// tree searches the files beneath root that ripgrep would: not hidden,
// not ignored.
func (s *grepSearch) tree(ctx context.Context, root string, filter func(string) bool) ([]grepFile, error) {
	list, err := s.fs.Walk(ctx, root, grepMaxFiles)
	if err != nil {
		return nil, err
	}
	ignore := newIgnoreFilter(ctx, s.fs, root, list.Files)
	var out []grepFile
	for _, f := range list.Files {
		if ctx.Err() != nil {
			return nil, errors.New("interrupted")
		}
		if f.Size > grepMaxFileSize || hiddenPath(f.Rel) || !filter(f.Rel) || ignore.ignored(f.Rel) {
			continue
		}
		if g, ok := s.file(ctx, filepath.Join(root, filepath.FromSlash(f.Rel)), true); ok {
			out = append(out, g)
		}
	}
	return out, nil
}

// file searches one file; ok is false when nothing matched (binary files
// never match).
func (s *grepSearch) file(ctx context.Context, abs string, named bool) (grepFile, bool) {
	st, err := s.fs.Stat(ctx, abs)
	if err != nil || st.Size > grepMaxFileSize {
		return grepFile{}, false
	}
	data, err := readAllFrom(ctx, s.fs, abs, st.Size)
	if err != nil || strings.IndexByte(string(data[:min(len(data), binarySniffLen)]), 0) >= 0 {
		return grepFile{}, false
	}
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	matched, count := s.matchedLines(text, lines)
	if count == 0 {
		return grepFile{}, false
	}
	g := grepFile{path: abs, count: count, mod: datedPath{path: abs, mod: st.ModTime}}
	if s.args.mode() == "content" {
		prefix := ""
		if named {
			prefix = abs
		}
		g.lines = contentLines(lines, matched, prefix, s.args)
	}
	return g, true
}

// matchedLines finds the lines that match: each line on its own, as
// ripgrep does, or (multiline) every line a match spans. count is what
// ripgrep's --count reports: matching lines, or matches when multiline.
func (s *grepSearch) matchedLines(text string, lines []string) (map[int]bool, int) {
	matched := map[int]bool{}
	if !s.args.Multiline {
		for i, l := range lines {
			if s.re.MatchString(l) {
				matched[i] = true
			}
		}
		return matched, len(matched)
	}
	spans := s.re.FindAllStringIndex(text, -1)
	starts := make([]int, len(lines))
	for i, off := 1, 0; i < len(lines); i++ {
		off += len(lines[i-1]) + 1
		starts[i] = off
	}
	lineOf := func(off int) int { return sort.Search(len(starts), func(i int) bool { return starts[i] > off }) - 1 }
	for _, sp := range spans {
		end := max(sp[1]-1, sp[0])
		for l := max(lineOf(sp[0]), 0); l <= lineOf(end) && l < len(lines); l++ {
			matched[l] = true
		}
	}
	return matched, len(spans)
}

func (a claudeGrepArgs) mode() string {
	if a.OutputMode == "" {
		return "files_with_matches"
	}
	return a.OutputMode
}

// answer formats the findings in the output mode, paged by offset and
// head_limit.
func (s *grepSearch) answer(files []grepFile) Result {
	var entries []string
	total := 0
	switch s.args.mode() {
	case "content":
		for _, f := range files {
			entries = append(entries, f.lines...)
		}
		if len(entries) == 0 {
			return Result{Output: "No matches found", Summary: "no matches for " + s.args.Pattern}
		}
	case "count":
		for _, f := range files {
			entries = append(entries, fmt.Sprintf("%s:%d", f.path, f.count))
			total += f.count
		}
		if len(entries) == 0 {
			return Result{Output: "No matches found", Summary: "no matches for " + s.args.Pattern}
		}
	default:
		dated := make([]datedPath, len(files))
		for i, f := range files {
			dated[i] = f.mod
		}
		sortNewestFirst(dated)
		for _, d := range dated {
			entries = append(entries, d.path)
		}
		if len(entries) == 0 {
			return Result{Output: "No files found", Summary: "no files match " + s.args.Pattern}
		}
	}
	shown, limitInfo := pageEntries(entries, s.args.Offset, s.args.HeadLimit)
	var out string
	switch s.args.mode() {
	case "content":
		out = cmp.Or(strings.Join(shown, "\n"), "No matches found")
		if limitInfo != "" {
			out += "\n\n[Showing results with pagination = " + limitInfo + "]"
		}
	case "count":
		// The totals are those of the entries shown, as Claude Code sums
		// the "path:N" lines it returns.
		matches := 0
		for _, e := range shown {
			if i := strings.LastIndexByte(e, ':'); i > 0 {
				n, _ := strconv.Atoi(e[i+1:])
				matches += n
			}
		}
		out = cmp.Or(strings.Join(shown, "\n"), "No matches found") + fmt.Sprintf("\n\nFound %d total %s across %d %s.", matches, plural(matches, "occurrence"), len(shown), plural(len(shown), "file"))
		if limitInfo != "" {
			out += " with pagination = " + limitInfo
		}
	default:
		if len(shown) == 0 {
			out = "No files found"
			break
		}
		out = fmt.Sprintf("Found %d %s", len(shown), plural(len(shown), "file"))
		if limitInfo != "" {
			out += " " + limitInfo
		}
		out += "\n" + strings.Join(shown, "\n")
	}
	out = clipOutput(out, claudeGrepMaxOutput)
	return Result{Output: out, Summary: fmt.Sprintf("%d files match %s", len(files), s.args.Pattern)}
}

// claudeGrepHeadLimit is head_limit when the call gives none: Claude
// Code's DEFAULT_HEAD_LIMIT (its schema: "Defaults to 250 when
// unspecified. Pass 0 for unlimited").
const claudeGrepHeadLimit = 250

// pageEntries applies offset and head_limit as Claude Code's
// applyHeadLimit does, with its formatLimitInfo: "limit: N" only when the
// limit cut entries off, "offset: N" only when one was given.
func pageEntries(entries []string, offset, limit *int) ([]string, string) {
	off, lim := 0, claudeGrepHeadLimit
	if offset != nil {
		off = *offset
	}
	if limit != nil {
		lim = *limit
	}
	shown := entries[min(off, len(entries)):]
	var info []string
	if lim > 0 && len(shown) > lim {
		shown = shown[:lim]
		info = append(info, fmt.Sprintf("limit: %d", lim))
	}
	if off > 0 {
		info = append(info, fmt.Sprintf("offset: %d", off))
	}
	return shown, strings.Join(info, ", ")
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// contentLines prints the matched lines of text with their context the
// way ripgrep does: `path:line:text` for a match, `path-line-text` for
// context, `--` between groups that do not touch.
func contentLines(lines []string, matched map[int]bool, prefix string, a claudeGrepArgs) []string {
	before, after := contextSizes(a)
	show := make([]bool, len(lines))
	for l := range matched {
		for k := max(0, l-before); k <= min(len(lines)-1, l+after); k++ {
			show[k] = true
		}
	}
	numbers := a.N == nil || *a.N
	var out []string
	last := -2
	for l, ok := range show {
		if !ok {
			continue
		}
		if last >= 0 && l > last+1 && (before > 0 || after > 0) {
			out = append(out, "--")
		}
		last = l
		sep := "-"
		if matched[l] {
			sep = ":"
		}
		out = append(out, grepLine(prefix, sep, l+1, numbers, clipMatch([]byte(lines[l]))))
	}
	return out
}

func grepLine(prefix, sep string, n int, numbers bool, text string) string {
	var b strings.Builder
	if prefix != "" {
		b.WriteString(prefix + sep)
	}
	if numbers {
		fmt.Fprintf(&b, "%d%s", n, sep)
	}
	b.WriteString(text)
	return b.String()
}

// contextSizes are -B and -A, -C filling whichever is not given.
func contextSizes(a claudeGrepArgs) (before, after int) {
	if a.C != nil {
		before, after = *a.C, *a.C
	}
	if a.B != nil {
		before = *a.B
	}
	if a.A != nil {
		after = *a.A
	}
	return before, after
}

// clipOutput cuts s to max bytes at a line boundary, saying how many
// lines were dropped, as Claude Code does with long tool output.
func clipOutput(s string, maxBytes int) string {
	if len(s) <= maxBytes {
		return s
	}
	cut := strings.LastIndexByte(s[:maxBytes], '\n')
	if cut <= 0 {
		cut = maxBytes
	}
	dropped := strings.Count(s[cut:], "\n") + 1
	return fmt.Sprintf("%s\n\n... [%d lines truncated] ...", s[:cut], dropped)
}
