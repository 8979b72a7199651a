package patch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"

	"github.com/grovecli/grove/core/tools/safefile"
)

// Write applies computed changes to disk at the spots pins holds for
// them, each file through a temporary file and a rename in its directory.
// If a step fails, the steps already done are undone (files restored,
// created files and directories removed), so the patch lands entirely or
// not at all.
func Write(changes []Change, pins *Pins) error {
	var u undoLog
	for _, c := range changes {
		if err := u.apply(c, pins); err != nil {
			if rerr := u.rollback(); rerr != nil {
				return fmt.Errorf("%w; rolling back also failed: %v", err, rerr)
			}
			return fmt.Errorf("%w (no files were changed)", err)
		}
	}
	return nil
}

type undoStep struct {
	at      Spot
	content []byte
	link    string // the target, when a symlink was there
	mode    fs.FileMode
	existed bool
	dir     bool // a directory the write created
}

type undoLog struct{ steps []undoStep }

// remember records the state at s before it is changed.
func (u *undoLog) remember(s Spot) error {
	mode, err := s.Root.Lstat(s.Rel)
	if errors.Is(err, fs.ErrNotExist) {
		u.steps = append(u.steps, undoStep{at: s})
		return nil
	}
	if err != nil {
		return err
	}
	if mode&fs.ModeSymlink != 0 {
		target, err := s.Root.Readlink(s.Rel)
		if err != nil {
			return err
		}
		u.steps = append(u.steps, undoStep{at: s, link: target, existed: true})
		return nil
	}
	if !mode.IsRegular() {
		return fmt.Errorf("%s is not a regular file (%v)", s.Path(), mode.Type())
	}
	b, err := s.Root.ReadFileMax(s.Rel, MaxFileBytes)
	if errors.Is(err, safefile.ErrTooLarge) {
		return fmt.Errorf("%s: %w", s.Path(), tooLarge(MaxFileBytes+1))
	}
	if err != nil {
		return err
	}
	u.steps = append(u.steps, undoStep{at: s, content: b, mode: mode.Perm(), existed: true})
	return nil
}

// mkdirs creates the missing parents of s beneath its root, remembering
// each one.
func (u *undoLog) mkdirs(s Spot) error {
	var missing []string
	for d := path.Dir(s.Rel); d != "."; d = path.Dir(d) {
		if _, err := s.Root.Lstat(d); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		missing = append(missing, d)
	}
	for i := len(missing) - 1; i >= 0; i-- {
		if err := s.Root.Mkdir(missing[i], 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		u.steps = append(u.steps, undoStep{at: Spot{Root: s.Root, Rel: missing[i]}, dir: true})
	}
	return nil
}

func (u *undoLog) apply(c Change, pins *Pins) error {
	switch c.Op {
	case OpAdd:
		at, err := pins.spot(c.Path, false)
		if err != nil {
			return fmt.Errorf("add %s: %w", c.Path, err)
		}
		// Directories first, so that rolling back removes the file first.
		if err := u.mkdirs(at); err != nil {
			return fmt.Errorf("add %s: %w", c.Path, err)
		}
		if err := u.remember(at); err != nil {
			return fmt.Errorf("add %s: %w", c.Path, err)
		}
		if err := u.guard(c); err != nil {
			return err
		}
		if err := at.Root.WriteFile(at.Rel, []byte(c.New), 0o644); err != nil {
			return fmt.Errorf("add %s: %w", c.Path, err)
		}
	case OpDelete:
		at, err := pins.spot(c.Path, false)
		if err != nil {
			return fmt.Errorf("delete %s: %w", c.Path, err)
		}
		if err := u.remember(at); err != nil {
			return fmt.Errorf("delete %s: %w", c.Path, err)
		}
		if err := at.Root.Remove(at.Rel); err != nil {
			return fmt.Errorf("delete %s: %w", c.Path, err)
		}
	case OpUpdate:
		return u.update(c, pins)
	}
	return nil
}

// update writes an updated file in place (through a symlink to the file
// it names, keeping the link) or at its new name, removing the old one.
func (u *undoLog) update(c Change, pins *Pins) error {
	target := c.Path
	at, err := pins.spot(c.Path, true)
	if c.MoveTo != "" {
		target = c.MoveTo
		at, err = pins.spot(c.MoveTo, false)
	}
	if err != nil {
		return fmt.Errorf("update %s: %w", target, err)
	}
	mode := fs.FileMode(0o644)
	if st, err := os.Stat(c.Path); err == nil {
		mode = st.Mode().Perm()
	}
	if err := u.mkdirs(at); err != nil {
		return fmt.Errorf("update %s: %w", target, err)
	}
	if err := u.remember(at); err != nil {
		return fmt.Errorf("update %s: %w", target, err)
	}
	if err := u.guard(c); err != nil {
		return err
	}
	if err := at.Root.WriteFile(at.Rel, []byte(c.New), mode); err != nil {
		return fmt.Errorf("update %s: %w", target, err)
	}
	if c.MoveTo == "" {
		return nil
	}
	from, err := pins.spot(c.Path, false)
	if err != nil {
		return fmt.Errorf("move %s: %w", c.Path, err)
	}
	if err := u.remember(from); err != nil {
		return fmt.Errorf("move %s: %w", c.Path, err)
	}
	if err := from.Root.Remove(from.Rel); err != nil {
		return fmt.Errorf("move %s: %w", c.Path, err)
	}
	return nil
}

// ErrChanged reports a guarded change whose file changed after it was
// computed.
var ErrChanged = errors.New("the file changed on disk since it was read")

// guard checks a guarded change against the state remember just recorded
// at its spot (see Change.Guard).
func (u *undoLog) guard(c Change) error {
	if !c.Guard || len(u.steps) == 0 {
		return nil
	}
	s := u.steps[len(u.steps)-1]
	switch {
	case c.Op == OpAdd && s.existed:
		return fmt.Errorf("%s: %w (it exists now)", c.Path, ErrChanged)
	case c.Op == OpUpdate && (!s.existed || s.link != "" || string(s.content) != c.Old):
		return fmt.Errorf("%s: %w", c.Path, ErrChanged)
	}
	return nil
}

// rollback undoes the recorded steps, newest first.
func (u *undoLog) rollback() error {
	var errs []error
	for i := len(u.steps) - 1; i >= 0; i-- {
		s := u.steps[i]
		var err error
		switch {
		case s.dir:
			err = s.at.Root.Remove(s.at.Rel)
		case s.existed && s.link != "":
			if err = s.at.Root.Remove(s.at.Rel); err == nil || errors.Is(err, fs.ErrNotExist) {
				err = s.at.Root.Symlink(s.link, s.at.Rel)
			}
		case s.existed:
			err = s.at.Root.WriteFile(s.at.Rel, s.content, s.mode)
		default:
			if err = s.at.Root.Remove(s.at.Rel); errors.Is(err, fs.ErrNotExist) {
				err = nil
			}
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
