package patch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Change is the computed effect on one path.
type Change struct {
	Op       Op
	Path     string // absolute
	MoveTo   string // absolute, Update with move
	Old, New string
	Added    int
	Removed  int
}

// Compute resolves paths against cwd and computes every file's new
// content without touching the disk. An error names the file and hunk.
func Compute(p *Patch, cwd string) ([]Change, error) {
	var out []Change
	abs := func(x string) string {
		if filepath.IsAbs(x) {
			return filepath.Clean(x)
		}
		return filepath.Join(cwd, x)
	}
	for _, f := range p.Files {
		path := abs(f.Path)
		switch f.Op {
		case OpAdd:
			if _, err := os.Stat(path); err == nil {
				return nil, fmt.Errorf("%s: cannot add: the file already exists (use *** Update File)", f.Path)
			}
			out = append(out, Change{Op: OpAdd, Path: path, New: f.Contents, Added: strings.Count(f.Contents, "\n")})
		case OpDelete:
			b, err := os.ReadFile(path)
			if err != nil {
				return nil, fmt.Errorf("%s: cannot delete: %w", f.Path, notExist(err))
			}
			out = append(out, Change{Op: OpDelete, Path: path, Old: string(b), Removed: strings.Count(string(b), "\n")})
		case OpUpdate:
			b, err := os.ReadFile(path)
			if err != nil {
				return nil, fmt.Errorf("%s: cannot update: %w", f.Path, notExist(err))
			}
			newText, added, removed, err := applyHunks(string(b), f)
			if err != nil {
				return nil, err
			}
			c := Change{Op: OpUpdate, Path: path, Old: string(b), New: newText, Added: added, Removed: removed}
			if f.MoveTo != "" {
				c.MoveTo = abs(f.MoveTo)
			}
			out = append(out, c)
		}
	}
	return out, nil
}

func notExist(err error) error {
	if errors.Is(err, os.ErrNotExist) {
		return errors.New("no such file")
	}
	return err
}

// applyHunks applies f's hunks in order, each searched after the previous.
func applyHunks(text string, f FilePatch) (string, int, int, error) {
	trailingNL := strings.HasSuffix(text, "\n")
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if text == "" {
		lines = nil
	}
	pos := 0
	added, removed := 0, 0
	for hi, h := range f.Hunks {
		if h.Header != "" {
			idx := seek(lines, []string{h.Header}, pos, false)
			if idx < 0 {
				return "", 0, 0, fmt.Errorf("%s: hunk %d: context header %q not found", f.Path, hi+1, h.Header)
			}
			pos = idx + 1
		}
		old, nw := h.Old, h.New
		var idx int
		switch {
		case len(old) == 0:
			// Pure insertion: at the end of file, or after the header.
			idx = pos
			if h.EndOfFile || h.Header == "" {
				idx = len(lines)
			}
		default:
			idx = seek(lines, old, pos, h.EndOfFile)
			if idx < 0 && len(old) > 0 && old[len(old)-1] == "" {
				// A trailing empty context line often stands for the end of file.
				old = old[:len(old)-1]
				if len(nw) > 0 && nw[len(nw)-1] == "" {
					nw = nw[:len(nw)-1]
				}
				idx = seek(lines, old, pos, h.EndOfFile)
			}
		}
		if idx < 0 {
			first := ""
			for _, l := range h.Old {
				if strings.TrimSpace(l) != "" {
					first = l
					break
				}
			}
			return "", 0, 0, fmt.Errorf("%s: hunk %d (patch line %d) does not apply: could not find the lines starting %q", f.Path, hi+1, h.Line, strings.TrimSpace(first))
		}
		// Context lines keep the file's own text (they may have matched fuzzily).
		repl := make([]string, len(nw))
		for j := range nw {
			repl[j] = nw[j]
			if j < len(h.NewFromOld) {
				if k := h.NewFromOld[j]; k >= 0 && k < len(old) {
					repl[j] = lines[idx+k]
				}
			}
		}
		rest := append([]string(nil), lines[idx+len(old):]...)
		lines = append(append(lines[:idx], repl...), rest...)
		pos = idx + len(nw)
		for _, l := range diffCount(old, nw) {
			if l > 0 {
				added += l
			} else {
				removed -= l
			}
		}
	}
	out := strings.Join(lines, "\n")
	if len(lines) > 0 && (trailingNL || text == "") {
		out += "\n"
	}
	return out, added, removed, nil
}

// diffCount reports lines added (+) and removed (-) between two blocks.
func diffCount(old, nw []string) []int {
	common := 0
	set := map[string]int{}
	for _, l := range old {
		set[l]++
	}
	for _, l := range nw {
		if set[l] > 0 {
			set[l]--
			common++
		}
	}
	return []int{len(nw) - common, -(len(old) - common)}
}

// seek finds pattern in lines at or after start, trying exact matches,
// then ignoring trailing whitespace, then ignoring surrounding whitespace,
// then normalising typographic punctuation. eof prefers a match at the end.
func seek(lines, pattern []string, start int, eof bool) int {
	if len(pattern) == 0 {
		return start
	}
	if len(pattern) > len(lines) {
		return -1
	}
	for _, norm := range []func(string) string{
		func(s string) string { return s },
		func(s string) string { return strings.TrimRight(s, " \t") },
		strings.TrimSpace,
		func(s string) string { return normalizePunct(strings.TrimSpace(s)) },
	} {
		if eof {
			i := len(lines) - len(pattern)
			if i >= start && matchAt(lines, pattern, i, norm) {
				return i
			}
		}
		for i := start; i+len(pattern) <= len(lines); i++ {
			if matchAt(lines, pattern, i, norm) {
				return i
			}
		}
	}
	return -1
}

func matchAt(lines, pattern []string, i int, norm func(string) string) bool {
	for j, p := range pattern {
		if norm(lines[i+j]) != norm(p) {
			return false
		}
	}
	return true
}

var punct = strings.NewReplacer("\u2010", "-", "\u2011", "-", "\u2012", "-", "\u2013", "-", "\u2014", "-", "\u2212", "-",
	"\u2018", "'", "\u2019", "'", "\u201C", `"`, "\u201D", `"`, "\u00A0", " ", "\u2026", "...")

func normalizePunct(s string) string { return punct.Replace(s) }
