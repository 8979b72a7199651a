package patch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Change is the computed effect of one file section, in patch order.
type Change struct {
	Op      Op
	Path    string // absolute
	MoveTo  string // absolute; Update with a rename only
	Old     string // content before (Update, Delete)
	New     string // content after (Add, Update)
	Added   int    // '+' lines
	Removed int    // '-' lines (every line of a deleted file)
	// Guard makes Write check, at the pinned spot and just before writing,
	// that the file still holds Old (Update) or does not exist (Add): a
	// whole-file write computed from an earlier read (Claude Code's Edit
	// and Write) never clobbers a change made since.
	Guard bool
}

// Compute resolves paths against cwd and computes every file's new content
// without touching the disk. Sections see the effect of earlier sections
// of the same patch (an added file can be updated further down). An error
// names the file and, for a hunk that does not apply, the hunk.
func Compute(p *Patch, cwd string) ([]Change, error) {
	vfs := &overlay{files: map[string]*string{}}
	out := make([]Change, 0, len(p.Files))
	for _, f := range p.Files {
		path := Resolve(cwd, f.Path)
		switch f.Op {
		case OpAdd:
			exists, err := vfs.exists(path)
			if err != nil {
				return nil, fmt.Errorf("%s: cannot add: %w", f.Path, err)
			}
			if exists {
				return nil, fmt.Errorf("%s: cannot add: the file already exists (use *** Update File to change it)", f.Path)
			}
			if err := checkNewSize(f.Contents); err != nil {
				return nil, fmt.Errorf("%s: cannot add: %w", f.Path, err)
			}
			vfs.set(path, &f.Contents)
			out = append(out, Change{Op: OpAdd, Path: path, New: f.Contents, Added: strings.Count(f.Contents, "\n")})
		case OpDelete:
			old, err := vfs.read(path)
			if err != nil {
				return nil, fmt.Errorf("%s: cannot delete: %w", f.Path, err)
			}
			vfs.set(path, nil)
			out = append(out, Change{Op: OpDelete, Path: path, Old: old, Removed: countLines(old)})
		case OpUpdate:
			old, err := vfs.read(path)
			if err != nil {
				return nil, fmt.Errorf("%s: cannot update: %w", f.Path, err)
			}
			updated, err := applyHunks(old, f)
			if err != nil {
				return nil, err
			}
			if err := checkNewSize(updated); err != nil {
				return nil, fmt.Errorf("%s: cannot update: %w", f.Path, err)
			}
			c := Change{Op: OpUpdate, Path: path, Old: old, New: updated}
			for _, h := range f.Hunks {
				for _, l := range h.Lines {
					switch l.Kind {
					case '+':
						c.Added++
					case '-':
						c.Removed++
					}
				}
			}
			if f.MoveTo != "" {
				if dest := Resolve(cwd, f.MoveTo); dest != path {
					if isDir(dest) {
						return nil, fmt.Errorf("%s: cannot move to %s: it is a directory", f.Path, f.MoveTo)
					}
					c.MoveTo = dest
					vfs.set(path, nil)
					path = dest
				}
			}
			vfs.set(path, &updated)
			out = append(out, c)
		}
	}
	return out, nil
}

// Resolve makes a patch path absolute against cwd.
func Resolve(cwd, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(cwd, p)
}

func countLines(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// overlay is the disk as the patch has changed it so far.
type overlay struct {
	files map[string]*string // nil value = deleted by the patch
}

func (o *overlay) set(path string, content *string) { o.files[path] = content }

func (o *overlay) exists(path string) (bool, error) {
	if c, ok := o.files[path]; ok {
		return c != nil, nil
	}
	_, err := os.Lstat(path)
	if err == nil {
		return true, nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return false, err
}

func (o *overlay) read(path string) (string, error) {
	if c, ok := o.files[path]; ok {
		if c == nil {
			return "", errors.New("no such file (an earlier section of this patch removed it)")
		}
		return *c, nil
	}
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", errors.New("no such file")
	case err != nil:
		return "", err
	case st.IsDir():
		return "", errors.New("it is a directory")
	case !st.Mode().IsRegular():
		return "", errors.New("not a regular file")
	}
	b, err := readBounded(path, st.Size())
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// applyHunks applies f's hunks to text in order, each searched after the
// previous one.
func applyHunks(text string, f FilePatch) (string, error) {
	crlf := strings.Contains(text, "\r\n")
	if crlf {
		text = strings.ReplaceAll(text, "\r\n", "\n")
	}
	trailingNL := strings.HasSuffix(text, "\n")
	var lines []string
	if text != "" {
		lines = strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	}
	pos := 0
	for hi, h := range f.Hunks {
		fail := func(why string) error {
			return fmt.Errorf("%s: hunk %d of %d (patch line %d%s) does not apply: %s; re-read the file and send a patch against its current content",
				f.Path, hi+1, len(f.Hunks), h.Line, firstLineNote(h), why)
		}
		start := pos
		if h.Header != "" {
			idx := seek(lines, []string{h.Header}, pos, false)
			if idx < 0 {
				return "", fail(fmt.Sprintf("its @@ line %q was not found", h.Header))
			}
			start = idx + 1
		}
		if len(h.Old()) > 0 && seek(lines, h.Old(), start, h.EndOfFile) < 0 {
			// Blank context lines closing a hunk often stand for the end of
			// the file; they add nothing to the change, so retry without.
			h.Lines = trimBlankContext(h.Lines)
		}
		old, repl := h.Old(), replacement(h)
		var idx int
		if len(old) == 0 {
			// A pure insertion goes right after its @@ line, or at the end.
			idx = len(lines)
			if h.Header != "" && !h.EndOfFile {
				idx = start
			}
		} else {
			idx = seek(lines, old, start, h.EndOfFile)
			if idx < 0 && h.Header != "" {
				// The @@ line is often repeated as the first context line.
				idx = seek(lines, old, start-1, h.EndOfFile)
			}
			if idx < 0 {
				where := "in the file"
				if start > 0 {
					where = fmt.Sprintf("after line %d", start)
				}
				return "", fail(fmt.Sprintf("its %d context/removed lines were not found %s", len(old), where))
			}
		}
		// Context lines keep the file's own text: they may have matched
		// only after whitespace or punctuation normalisation.
		newLines := make([]string, len(repl))
		for j, r := range repl {
			newLines[j] = r.text
			if r.old >= 0 {
				newLines[j] = lines[idx+r.old]
			}
		}
		tail := append([]string(nil), lines[idx+len(old):]...)
		lines = append(append(lines[:idx], newLines...), tail...)
		pos = idx + len(newLines)
	}
	out := strings.Join(lines, "\n")
	if len(lines) > 0 && (trailingNL || text == "") {
		out += "\n"
	}
	if crlf {
		out = strings.ReplaceAll(out, "\n", "\r\n")
	}
	return out, nil
}

func trimBlankContext(lines []Line) []Line {
	n := len(lines)
	for n > 0 && lines[n-1].Kind == ' ' && strings.TrimSpace(lines[n-1].Text) == "" {
		n--
	}
	return lines[:n]
}

// replLine is one line of a hunk's result: a context line refers to its
// index among the hunk's old lines, an added line carries its text.
type replLine struct {
	text string
	old  int // -1 for added lines
}

func replacement(h Hunk) []replLine {
	var out []replLine
	oldIdx := 0
	for _, l := range h.Lines {
		switch l.Kind {
		case ' ':
			out = append(out, replLine{l.Text, oldIdx})
			oldIdx++
		case '-':
			oldIdx++
		case '+':
			out = append(out, replLine{l.Text, -1})
		}
	}
	return out
}

// firstLineNote quotes the hunk's first non-blank context or removed line.
func firstLineNote(h Hunk) string {
	for _, l := range h.Old() {
		if s := strings.TrimSpace(l); s != "" {
			return fmt.Sprintf(", starting %q", clip(s))
		}
	}
	return ""
}
