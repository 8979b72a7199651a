package patch

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
)

// Ref names one hunk of a patch: File is the index of its file section,
// Hunk the index of the hunk in it (0 for an added file or a pure move,
// which revert whole).
type Ref struct{ File, Hunk int }

// Undo is the patch that reverts hunks of an applied patch, with what the
// files must still hold for it to be the exact reverse.
type Undo struct {
	Patch *Patch
	// Added maps the path of each added file to revert (as written in the
	// patch) to the content it was created with: it is deleted only if it
	// still has exactly that content.
	Added map[string]string
}

// Reverse builds the undo of the hunks refs names in p, an applied patch.
// An updated file's hunks are reversed (their added lines removed, their
// removed lines put back); reverting every hunk of a moved file also
// moves it back; an added file is deleted. A deleted file cannot be
// restored: the patch does not hold its content.
func Reverse(p *Patch, refs []Ref) (Undo, error) {
	u := Undo{Patch: &Patch{}, Added: map[string]string{}}
	byFile := map[int][]int{}
	var files []int
	for _, r := range refs {
		if r.File < 0 || r.File >= len(p.Files) {
			return Undo{}, fmt.Errorf("file %d: the patch has %d file sections", r.File, len(p.Files))
		}
		if _, ok := byFile[r.File]; !ok {
			files = append(files, r.File)
		}
		if !slices.Contains(byFile[r.File], r.Hunk) {
			byFile[r.File] = append(byFile[r.File], r.Hunk)
		}
	}
	if len(files) == 0 {
		return Undo{}, errors.New("no hunk to revert")
	}
	slices.Sort(files)
	for _, fi := range files {
		f := p.Files[fi]
		hunks := byFile[fi]
		slices.Sort(hunks)
		switch f.Op {
		case OpDelete:
			return Undo{}, fmt.Errorf("%s: a deleted file cannot be restored: apply_patch does not keep its content", f.Path)
		case OpAdd:
			u.Patch.Files = append(u.Patch.Files, FilePatch{Op: OpDelete, Path: f.Path})
			u.Added[f.Path] = f.Contents
		case OpUpdate:
			fp, err := reverseUpdate(f, hunks)
			if err != nil {
				return Undo{}, err
			}
			u.Patch.Files = append(u.Patch.Files, fp)
		}
	}
	return u, nil
}

// reverseUpdate reverses the given hunks (sorted) of an update section.
func reverseUpdate(f FilePatch, hunks []int) (FilePatch, error) {
	at := f.Path
	if f.MoveTo != "" {
		at = f.MoveTo // the file is there now
	}
	fp := FilePatch{Op: OpUpdate, Path: at}
	all := len(f.Hunks) == 0 && slices.Equal(hunks, []int{0}) || len(hunks) == len(f.Hunks)
	if f.MoveTo != "" && all {
		fp.MoveTo = f.Path
	}
	for _, hi := range hunks {
		if len(f.Hunks) == 0 && hi == 0 {
			continue // a pure move: moving back is the whole undo
		}
		if hi < 0 || hi >= len(f.Hunks) {
			return FilePatch{}, fmt.Errorf("%s: hunk %d: the file has %d hunks", f.Path, hi+1, len(f.Hunks))
		}
		h := f.Hunks[hi]
		if len(h.New()) == 0 {
			// Its removed lines had no context: where they go back is unknown.
			return FilePatch{}, fmt.Errorf("%s: hunk %d only removed lines, without context; grove cannot tell where to put them back", f.Path, hi+1)
		}
		r := Hunk{Header: h.Header, EndOfFile: h.EndOfFile}
		for _, l := range h.Lines {
			switch l.Kind {
			case '+':
				l.Kind = '-'
			case '-':
				l.Kind = '+'
			}
			r.Lines = append(r.Lines, l)
		}
		fp.Hunks = append(fp.Hunks, r)
	}
	return fp, nil
}

// Check verifies, against the files as read now, that the undo is exact:
// each reversed hunk's lines occur exactly once in its file (else the
// file changed since, or the place is ambiguous) and each added file
// still has the content it was created with. read returns a file's
// content by its patch path; its errors wrap fs.ErrNotExist for a missing
// file.
func (u Undo) Check(read func(path string) (string, error)) error {
	for _, f := range u.Patch.Files {
		text, err := read(f.Path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("%s no longer exists; nothing was reverted", f.Path)
		case err != nil:
			return fmt.Errorf("read %s: %w", f.Path, err)
		}
		text = strings.ReplaceAll(text, "\r\n", "\n")
		if want, ok := u.Added[f.Path]; ok {
			if text != want {
				return fmt.Errorf("%s changed since it was added; nothing was reverted", f.Path)
			}
			continue
		}
		if f.MoveTo != "" {
			if _, err := read(f.MoveTo); !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("%s exists again (or cannot be read); moving %s back would replace it, nothing was reverted", f.MoveTo, f.Path)
			}
		}
		lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
		for i, h := range f.Hunks {
			switch n := countMatches(lines, h.Old()); {
			case n == 0:
				return fmt.Errorf("%s changed since the patch: the lines of its hunk %d are no longer there; nothing was reverted", f.Path, i+1)
			case n > 1:
				return fmt.Errorf("%s: the lines of its hunk %d occur %d times; grove cannot tell which to revert, nothing was reverted", f.Path, i+1, n)
			}
		}
	}
	return nil
}

// countMatches counts the places pattern occurs in lines, at the first
// (strictest) of seek's comparisons that finds it at all.
func countMatches(lines, pattern []string) int {
	if len(pattern) == 0 || len(pattern) > len(lines) {
		return 0
	}
	for _, norm := range normalisers {
		n := 0
		for i := 0; i+len(pattern) <= len(lines); i++ {
			if matchAt(lines, pattern, i, norm) {
				n++
			}
		}
		if n > 0 {
			return n
		}
	}
	return 0
}

// Format writes p in the apply_patch format, as Parse reads it.
func Format(p *Patch) string {
	var b strings.Builder
	b.WriteString(beginMarker + "\n")
	for _, f := range p.Files {
		switch f.Op {
		case OpAdd:
			fmt.Fprintf(&b, "%s %s\n", addPrefix, f.Path)
			for _, l := range strings.SplitAfter(f.Contents, "\n") {
				if l != "" {
					b.WriteString("+" + strings.TrimSuffix(l, "\n") + "\n")
				}
			}
		case OpDelete:
			fmt.Fprintf(&b, "%s %s\n", delPrefix, f.Path)
		case OpUpdate:
			fmt.Fprintf(&b, "%s %s\n", updPrefix, f.Path)
			if f.MoveTo != "" {
				fmt.Fprintf(&b, "%s %s\n", movePrefix, f.MoveTo)
			}
			for _, h := range f.Hunks {
				b.WriteString(strings.TrimSpace("@@ "+h.Header) + "\n")
				for _, l := range h.Lines {
					b.WriteString(string(l.Kind) + l.Text + "\n")
				}
				if h.EndOfFile {
					b.WriteString(eofMarker + "\n")
				}
			}
		}
	}
	b.WriteString(endMarker + "\n")
	return b.String()
}
