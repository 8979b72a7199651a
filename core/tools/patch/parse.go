// Package patch parses and applies patches in the Codex apply_patch format:
//
//	*** Begin Patch
//	*** Add File: <path>
//	+<line>
//	*** Update File: <path>
//	*** Move to: <new path>
//	@@ <optional context line that locates the hunk>
//	 <context>
//	-<removed>
//	+<added>
//	*** End of File
//	*** Delete File: <path>
//	*** End Patch
//
// Applying is atomic: Compute works out every file's new content in memory
// and fails without touching the disk if any hunk does not apply; Write
// then changes the files and restores them if a write fails midway.
package patch

import (
	"fmt"
	"regexp"
	"strings"
)

// Op is what a patch does to one file.
type Op int

// The three file operations.
const (
	OpAdd Op = iota
	OpUpdate
	OpDelete
)

func (o Op) String() string {
	switch o {
	case OpAdd:
		return "add"
	case OpUpdate:
		return "update"
	case OpDelete:
		return "delete"
	}
	return fmt.Sprintf("Op(%d)", int(o))
}

// FilePatch is one `*** Add/Update/Delete File:` section.
type FilePatch struct {
	Op       Op
	Path     string // as written in the patch
	MoveTo   string // Update only; "" = no rename
	Contents string // Add only
	Hunks    []Hunk // Update only
	Line     int    // 1-based line of the section header in the patch
}

// Hunk is one `@@` section of an update.
type Hunk struct {
	Header string // text after @@ (may be empty): a line searched for first
	Lines  []Line
	// EndOfFile anchors the hunk to the end of the file.
	EndOfFile bool
	Line      int // 1-based line of the hunk in the patch
}

// Line is one line of a hunk: Kind is ' ' (context), '-' or '+'.
type Line struct {
	Kind byte
	Text string
}

// Old returns the lines the hunk expects in the file (context and removed).
func (h Hunk) Old() []string {
	var out []string
	for _, l := range h.Lines {
		if l.Kind != '+' {
			out = append(out, l.Text)
		}
	}
	return out
}

// New returns the lines the hunk leaves in the file (context and added).
func (h Hunk) New() []string {
	var out []string
	for _, l := range h.Lines {
		if l.Kind != '-' {
			out = append(out, l.Text)
		}
	}
	return out
}

// Patch is a parsed patch.
type Patch struct {
	Files []FilePatch
}

const (
	beginMarker = "*** Begin Patch"
	endMarker   = "*** End Patch"
	addPrefix   = "*** Add File:"
	updPrefix   = "*** Update File:"
	delPrefix   = "*** Delete File:"
	movePrefix  = "*** Move to:"
	eofMarker   = "*** End of File"
)

// ParseError names the patch line at fault.
type ParseError struct {
	Line int
	Msg  string
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("invalid patch at line %d: %s", e.Line, e.Msg)
}

// heredocStart matches a shell heredoc opener such as `apply_patch <<'EOF'`.
var heredocStart = regexp.MustCompile(`<<-?\s*(['"]?)([A-Za-z_][A-Za-z0-9_]*)(['"]?)\s*$`)

// Parse reads a patch. It tolerates CRLF line ends, a byte-order mark,
// blank lines around the patch and a shell heredoc wrapper
// (`apply_patch <<'EOF'` … `EOF`).
func Parse(input string) (*Patch, error) {
	text := strings.TrimPrefix(input, "\ufeff")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	lines := strings.Split(text, "\n")
	start, end := 0, len(lines)
	for start < end && strings.TrimSpace(lines[start]) == "" {
		start++
	}
	for end > start && strings.TrimSpace(lines[end-1]) == "" {
		end--
	}
	if start < end && strings.TrimSpace(lines[start]) != beginMarker {
		if m := heredocStart.FindStringSubmatch(strings.TrimSpace(lines[start])); m != nil && m[1] == m[3] {
			start++
			if end > start && strings.TrimSpace(lines[end-1]) == m[2] {
				end--
			}
			for start < end && strings.TrimSpace(lines[start]) == "" {
				start++
			}
			for end > start && strings.TrimSpace(lines[end-1]) == "" {
				end--
			}
		}
	}
	if start >= end {
		return nil, &ParseError{Line: 1, Msg: "the patch is empty; it must start with '*** Begin Patch' and end with '*** End Patch'"}
	}
	if strings.TrimSpace(lines[start]) != beginMarker {
		return nil, &ParseError{Line: start + 1, Msg: "the first line must be '*** Begin Patch'"}
	}
	if end-start < 2 || strings.TrimSpace(lines[end-1]) != endMarker {
		return nil, &ParseError{Line: end, Msg: "the last line must be '*** End Patch'"}
	}
	ps := &parser{lines: lines, i: start + 1, last: end - 1}
	p, err := ps.parse()
	if err != nil {
		return nil, err
	}
	if len(p.Files) == 0 {
		return nil, &ParseError{Line: start + 1, Msg: "the patch changes no files"}
	}
	return p, nil
}

type parser struct {
	lines []string
	i     int // current line (0-based)
	last  int // index of the *** End Patch line
}

func (ps *parser) more() bool   { return ps.i < ps.last }
func (ps *parser) peek() string { return ps.lines[ps.i] }
func (ps *parser) errf(line int, format string, args ...any) error {
	return &ParseError{Line: line, Msg: fmt.Sprintf(format, args...)}
}

func (ps *parser) parse() (*Patch, error) {
	p := &Patch{}
	for ps.more() {
		line := ps.peek()
		header := ps.i + 1
		var (
			fp  FilePatch
			err error
		)
		switch {
		case strings.TrimSpace(line) == "":
			ps.i++
			continue
		case strings.HasPrefix(line, addPrefix):
			fp, err = ps.addFile(strings.TrimSpace(line[len(addPrefix):]), header)
		case strings.HasPrefix(line, delPrefix):
			fp = FilePatch{Op: OpDelete, Path: strings.TrimSpace(line[len(delPrefix):]), Line: header}
			ps.i++
		case strings.HasPrefix(line, updPrefix):
			fp, err = ps.updateFile(strings.TrimSpace(line[len(updPrefix):]), header)
		default:
			return nil, ps.errf(header, "expected '*** Add File:', '*** Update File:' or '*** Delete File:', got %q", clip(line))
		}
		if err != nil {
			return nil, err
		}
		if fp.Path == "" {
			return nil, ps.errf(header, "missing file path after %q", strings.TrimSpace(line))
		}
		p.Files = append(p.Files, fp)
	}
	return p, nil
}

func (ps *parser) addFile(path string, header int) (FilePatch, error) {
	fp := FilePatch{Op: OpAdd, Path: path, Line: header}
	ps.i++
	var body []string
	for ps.more() && !isSectionHeader(ps.peek()) {
		l := ps.peek()
		switch {
		case strings.HasPrefix(l, "+"):
			body = append(body, l[1:])
		case l == "" && ps.addLinesFollow():
			// A blank line inside the file: the model dropped its '+'.
			body = append(body, "")
		case strings.TrimSpace(l) == "":
			// Blank lines between sections.
		default:
			return fp, ps.errf(ps.i+1, "every line of an added file must start with '+' (file %s, got %q)", path, clip(l))
		}
		ps.i++
	}
	if len(body) > 0 {
		fp.Contents = strings.Join(body, "\n") + "\n"
	}
	return fp, nil
}

// addLinesFollow reports whether more '+' lines follow the blank line at
// ps.i before the next section.
func (ps *parser) addLinesFollow() bool {
	for j := ps.i + 1; j < ps.last; j++ {
		l := ps.lines[j]
		if strings.TrimSpace(l) == "" {
			continue
		}
		return strings.HasPrefix(l, "+")
	}
	return false
}

func (ps *parser) updateFile(path string, header int) (FilePatch, error) {
	fp := FilePatch{Op: OpUpdate, Path: path, Line: header}
	ps.i++
	if ps.more() && strings.HasPrefix(ps.peek(), movePrefix) {
		fp.MoveTo = strings.TrimSpace(ps.peek()[len(movePrefix):])
		if fp.MoveTo == "" {
			return fp, ps.errf(ps.i+1, "missing path after '*** Move to:' (file %s)", path)
		}
		ps.i++
	}
	for ps.more() && !isSectionHeader(ps.peek()) {
		if strings.TrimSpace(ps.peek()) == "" && ps.onlyBlanksBeforeSection() {
			ps.i++
			continue
		}
		h := Hunk{Line: ps.i + 1}
		switch l := ps.peek(); {
		case strings.HasPrefix(l, "@@"):
			h.Header = hunkHeader(l)
			ps.i++
		case len(fp.Hunks) > 0:
			return fp, ps.errf(ps.i+1, "expected '@@' to start the next hunk of %s, got %q", path, clip(l))
		}
		if err := ps.hunkBody(&h, path); err != nil {
			return fp, err
		}
		if len(h.Lines) == 0 && !(h.Header != "" && h.EndOfFile) {
			return fp, ps.errf(h.Line, "empty hunk in %s: a hunk needs ' ', '-' or '+' lines", path)
		}
		fp.Hunks = append(fp.Hunks, h)
	}
	if len(fp.Hunks) == 0 && fp.MoveTo == "" {
		return fp, ps.errf(header, "update of %s has no hunks", path)
	}
	return fp, nil
}

// hunkBody reads hunk lines up to the next @@, section header or End of
// File marker.
func (ps *parser) hunkBody(h *Hunk, path string) error {
	var blankTail int // trailing context lines that were bare blank lines
	for ps.more() {
		l := ps.peek()
		if strings.HasPrefix(l, "@@") || isSectionHeader(l) {
			break
		}
		if strings.TrimSpace(l) == eofMarker {
			h.EndOfFile = true
			ps.i++
			break
		}
		switch {
		case l == "":
			// A blank line is an empty context line (editors strip the space).
			h.Lines = append(h.Lines, Line{' ', ""})
			blankTail++
			ps.i++
			continue
		case l[0] == ' ' || l[0] == '-' || l[0] == '+':
			h.Lines = append(h.Lines, Line{l[0], l[1:]})
		default:
			return ps.errf(ps.i+1, "hunk lines must start with ' ', '-' or '+' (got %q in %s)", clip(l), path)
		}
		blankTail = 0
		ps.i++
	}
	// Bare blank lines closing a hunk are usually separators, not context.
	h.Lines = h.Lines[:len(h.Lines)-blankTail]
	return nil
}

// onlyBlanksBeforeSection reports whether only blank lines remain before
// the next section header (or the end of the patch).
func (ps *parser) onlyBlanksBeforeSection() bool {
	for j := ps.i; j < ps.last; j++ {
		if isSectionHeader(ps.lines[j]) {
			return true
		}
		if strings.TrimSpace(ps.lines[j]) != "" {
			return false
		}
	}
	return true
}

// gitRange matches the line ranges of a unified-diff hunk header, which
// some models write out of habit ("@@ -12,6 +12,7 @@ func main() {").
var gitRange = regexp.MustCompile(`^-\d+(,\d+)? \+\d+(,\d+)?\s*@@`)

// hunkHeader returns the context text of an @@ line, without unified-diff
// ranges or a closing @@.
func hunkHeader(l string) string {
	h := strings.TrimSpace(strings.TrimPrefix(l, "@@"))
	if m := gitRange.FindStringIndex(h); m != nil {
		h = h[m[1]:]
	}
	return strings.TrimSpace(strings.TrimSuffix(h, "@@"))
}

func isSectionHeader(l string) bool {
	return strings.HasPrefix(l, addPrefix) || strings.HasPrefix(l, updPrefix) || strings.HasPrefix(l, delPrefix) || strings.TrimSpace(l) == endMarker
}

func clip(s string) string {
	if len(s) > 60 {
		r := []rune(s)
		if len(r) > 60 {
			return string(r[:60]) + "…"
		}
	}
	return s
}
