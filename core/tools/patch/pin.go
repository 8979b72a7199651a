package patch

import (
	"cmp"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/grovecli/grove/core/tools/safefile"
)

// Spot is where one path of a patch is written: a name beneath an open
// root directory, free of symlinks when it was pinned. The kernel refuses
// to follow a symlink or leave the root on the way to it (see safefile),
// so swapping a directory for a symlink after the check makes the write
// fail instead of landing elsewhere.
type Spot struct {
	Root *safefile.Root
	Rel  string // slash-separated, relative to Root
}

// Path is the absolute path the spot stands for.
func (s Spot) Path() string { return filepath.Join(s.Root.Path(), filepath.FromSlash(s.Rel)) }

// Pins resolves each path of a patch once and remembers where it was
// checked, so that the write goes exactly there.
type Pins struct {
	roots []string // writable roots, resolved, innermost first
	open  map[string]*safefile.Root
	spots map[pinKey]Spot
}

type pinKey struct {
	path   string
	follow bool // the final symlink is followed (an update in place)
}

// NewPins pins paths beneath roots (absolute, symlinks resolved).
func NewPins(roots []string) *Pins {
	rs := slices.Clone(roots)
	slices.SortFunc(rs, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	return &Pins{roots: rs, open: map[string]*safefile.Root{}, spots: map[pinKey]Spot{}}
}

// Pin resolves every path the changes write and pins it beneath the
// innermost root that holds it. A path under no root is pinned beneath
// "/" and listed in outside (resolved), for the caller to refuse or to get
// approved: approving it approves that resolved path and no other.
func (p *Pins) Pin(changes []Change) (outside []string, err error) {
	for _, c := range changes {
		for _, k := range pinKeys(c) {
			if _, ok := p.spots[k]; ok {
				continue
			}
			real, err := safefile.Resolve(k.path, !k.follow)
			if err != nil {
				return nil, err
			}
			root := ""
			for _, r := range p.roots {
				if within(r, real) {
					root = r
					break
				}
			}
			if root == "" {
				root = string(filepath.Separator)
				outside = append(outside, real)
			}
			rel, err := filepath.Rel(root, real)
			if err != nil {
				return nil, err
			}
			r, err := p.openRoot(root)
			if err != nil {
				return nil, err
			}
			p.spots[k] = Spot{Root: r, Rel: filepath.ToSlash(rel)}
		}
	}
	return outside, nil
}

// pinKeys lists the paths a change writes: an update in place writes
// through a symlink to the file it names; adds, deletes and both ends of
// a move act on the name itself.
func pinKeys(c Change) []pinKey {
	switch {
	case c.Op == OpUpdate && c.MoveTo == "":
		return []pinKey{{c.Path, true}}
	case c.Op == OpUpdate:
		return []pinKey{{c.MoveTo, false}, {c.Path, false}}
	default:
		return []pinKey{{c.Path, false}}
	}
}

func (p *Pins) openRoot(dir string) (*safefile.Root, error) {
	if r, ok := p.open[dir]; ok {
		return r, nil
	}
	r, err := safefile.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	p.open[dir] = r
	return r, nil
}

func (p *Pins) spot(path string, follow bool) (Spot, error) {
	s, ok := p.spots[pinKey{path, follow}]
	if !ok {
		return Spot{}, fmt.Errorf("%s was not checked before writing", path)
	}
	return s, nil
}

// Resolved is where path was pinned (absolute, resolved), "" if it was
// not.
func (p *Pins) Resolved(path string) string {
	for _, follow := range []bool{true, false} {
		if s, ok := p.spots[pinKey{path, follow}]; ok {
			return s.Path()
		}
	}
	return ""
}

// Close releases the roots' directory fds.
func (p *Pins) Close() error {
	var errs []error
	for _, r := range p.open {
		errs = append(errs, r.Close())
	}
	p.open = map[string]*safefile.Root{}
	p.spots = map[pinKey]Spot{}
	return errors.Join(errs...)
}

// within reports whether p is root or below it (both clean and absolute).
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
