// Package patch parses and applies patches in the Codex apply_patch format.
// Applying is atomic: every file's new content is computed in memory first,
// and nothing is written unless every hunk applies.
package patch

import (
	"fmt"
	"strings"
)

// Op is what a patch does to one file.
type Op int

const (
	OpAdd Op = iota
	OpUpdate
	OpDelete
)

// FilePatch is one `*** Add/Update/Delete File:` section.
type FilePatch struct {
	Op       Op
	Path     string
	MoveTo   string // Update only
	Contents string // Add only
	Hunks    []Hunk // Update only
	Line     int    // line of the header in the patch (1-based)
}

// Hunk is one `@@` section of an update.
type Hunk struct {
	Header   string   // text after @@ (may be empty)
	Old, New []string // context+removed lines, context+added lines
	// NewFromOld maps each New line to its index in Old when it is a
	// context line (-1 for added lines), so fuzzy-matched context keeps the
	// file's own text.
	NewFromOld []int
	EndOfFile  bool
	Line       int
}

// Patch is a parsed patch.
type Patch struct {
	Files []FilePatch
}

const (
	beginMarker = "*** Begin Patch"
	endMarker   = "*** End Patch"
	addPrefix   = "*** Add File: "
	updPrefix   = "*** Update File: "
	delPrefix   = "*** Delete File: "
	movePrefix  = "*** Move to: "
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

// Parse reads a patch. It tolerates CRLF, surrounding blank lines and a
// shell heredoc wrapper (`<<'EOF' … EOF`).
func Parse(input string) (*Patch, error) {
	text := strings.ReplaceAll(input, "\r\n", "\n")
	lines := strings.Split(text, "\n")
	// Trim blank lines and a heredoc wrapper.
	start, end := 0, len(lines)
	for start < end && strings.TrimSpace(lines[start]) == "" {
		start++
	}
	for end > start && strings.TrimSpace(lines[end-1]) == "" {
		end--
	}
	if start < end && strings.Contains(lines[start], "<<") && strings.TrimSpace(lines[start]) != beginMarker {
		start++
		if end > start && !strings.HasPrefix(strings.TrimSpace(lines[end-1]), "***") {
			end--
		}
	}
	if start >= end || strings.TrimSpace(lines[start]) != beginMarker {
		return nil, &ParseError{Line: start + 1, Msg: "the first line must be '*** Begin Patch'"}
	}
	if strings.TrimSpace(lines[end-1]) != endMarker {
		return nil, &ParseError{Line: end, Msg: "the last line must be '*** End Patch'"}
	}
	p := &Patch{}
	i := start + 1
	last := end - 1
	for i < last {
		line := lines[i]
		switch {
		case strings.HasPrefix(line, addPrefix):
			fp := FilePatch{Op: OpAdd, Path: strings.TrimSpace(line[len(addPrefix):]), Line: i + 1}
			i++
			var body []string
			for i < last && !strings.HasPrefix(lines[i], "*** ") {
				if !strings.HasPrefix(lines[i], "+") {
					return nil, &ParseError{Line: i + 1, Msg: fmt.Sprintf("every line of an added file must start with '+' (file %s)", fp.Path)}
				}
				body = append(body, lines[i][1:])
				i++
			}
			if len(body) > 0 {
				fp.Contents = strings.Join(body, "\n") + "\n"
			}
			p.Files = append(p.Files, fp)
		case strings.HasPrefix(line, delPrefix):
			p.Files = append(p.Files, FilePatch{Op: OpDelete, Path: strings.TrimSpace(line[len(delPrefix):]), Line: i + 1})
			i++
		case strings.HasPrefix(line, updPrefix):
			fp := FilePatch{Op: OpUpdate, Path: strings.TrimSpace(line[len(updPrefix):]), Line: i + 1}
			i++
			if i < last && strings.HasPrefix(lines[i], movePrefix) {
				fp.MoveTo = strings.TrimSpace(lines[i][len(movePrefix):])
				i++
			}
			for i < last && !isFileHeader(lines[i]) {
				h := Hunk{Line: i + 1}
				if strings.HasPrefix(lines[i], "@@") {
					h.Header = strings.TrimSpace(strings.TrimPrefix(lines[i], "@@"))
					i++
				} else if len(fp.Hunks) > 0 {
					return nil, &ParseError{Line: i + 1, Msg: "expected '@@' to start the next hunk"}
				}
				for i < last && !strings.HasPrefix(lines[i], "@@") && !isFileHeader(lines[i]) {
					l := lines[i]
					switch {
					case l == eofMarker:
						h.EndOfFile = true
					case l == "" || l[0] == ' ':
						// An empty line inside a hunk is an empty context line.
						text := ""
						if l != "" {
							text = l[1:]
						}
						h.NewFromOld = append(h.NewFromOld, len(h.Old))
						h.Old = append(h.Old, text)
						h.New = append(h.New, text)
					case l[0] == '-':
						h.Old = append(h.Old, l[1:])
					case l[0] == '+':
						h.NewFromOld = append(h.NewFromOld, -1)
						h.New = append(h.New, l[1:])
					default:
						return nil, &ParseError{Line: i + 1, Msg: fmt.Sprintf("hunk lines must start with ' ', '-' or '+' (got %q in %s)", clip(l), fp.Path)}
					}
					i++
				}
				if len(h.Old) == 0 && len(h.New) == 0 {
					return nil, &ParseError{Line: h.Line, Msg: fmt.Sprintf("empty hunk in %s", fp.Path)}
				}
				fp.Hunks = append(fp.Hunks, h)
			}
			if len(fp.Hunks) == 0 && fp.MoveTo == "" {
				return nil, &ParseError{Line: fp.Line, Msg: fmt.Sprintf("update of %s has no hunks", fp.Path)}
			}
			p.Files = append(p.Files, fp)
		case strings.TrimSpace(line) == "":
			i++
		default:
			return nil, &ParseError{Line: i + 1, Msg: fmt.Sprintf("expected '*** Add File:', '*** Update File:' or '*** Delete File:', got %q", clip(line))}
		}
	}
	if len(p.Files) == 0 {
		return nil, &ParseError{Line: start + 1, Msg: "patch changes no files"}
	}
	for _, f := range p.Files {
		if f.Path == "" {
			return nil, &ParseError{Line: f.Line, Msg: "missing file path"}
		}
	}
	return p, nil
}

func isFileHeader(l string) bool {
	return strings.HasPrefix(l, addPrefix) || strings.HasPrefix(l, updPrefix) || strings.HasPrefix(l, delPrefix) || l == endMarker
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}
