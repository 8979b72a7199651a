package patch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Write applies computed changes to disk, each file through a temporary
// file and a rename. If a step fails, the steps already done are undone
// (files restored, created files and directories removed), so the patch
// lands entirely or not at all.
func Write(changes []Change) error {
	var u undoLog
	for _, c := range changes {
		if err := u.apply(c); err != nil {
			if rerr := u.rollback(); rerr != nil {
				return fmt.Errorf("%w; rolling back also failed: %v", err, rerr)
			}
			return fmt.Errorf("%w (no files were changed)", err)
		}
	}
	return nil
}

type undoStep struct {
	path    string
	content []byte
	mode    fs.FileMode
	existed bool
	dir     bool // a directory the write created
}

type undoLog struct{ steps []undoStep }

// remember records path's current state before it is changed.
func (u *undoLog) remember(path string) error {
	st, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		u.steps = append(u.steps, undoStep{path: path})
		return nil
	}
	if err != nil {
		return err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	u.steps = append(u.steps, undoStep{path: path, content: b, mode: st.Mode().Perm(), existed: true})
	return nil
}

// mkdirs creates the missing parents of path, remembering each one.
func (u *undoLog) mkdirs(path string) error {
	var missing []string
	for d := filepath.Dir(path); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || filepath.Dir(d) == d {
			break
		}
		missing = append(missing, d)
	}
	for i := len(missing) - 1; i >= 0; i-- {
		if err := os.Mkdir(missing[i], 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		u.steps = append(u.steps, undoStep{path: missing[i], dir: true})
	}
	return nil
}

func (u *undoLog) apply(c Change) error {
	switch c.Op {
	case OpAdd:
		// Directories first, so that rolling back removes the file first.
		if err := u.mkdirs(c.Path); err != nil {
			return fmt.Errorf("add %s: %w", c.Path, err)
		}
		if err := u.remember(c.Path); err != nil {
			return fmt.Errorf("add %s: %w", c.Path, err)
		}
		if err := writeFile(c.Path, c.New, 0o644); err != nil {
			return fmt.Errorf("add %s: %w", c.Path, err)
		}
	case OpDelete:
		if err := u.remember(c.Path); err != nil {
			return fmt.Errorf("delete %s: %w", c.Path, err)
		}
		if err := os.Remove(c.Path); err != nil {
			return fmt.Errorf("delete %s: %w", c.Path, err)
		}
	case OpUpdate:
		// Write through a symlink to the file it names, keeping the link.
		target := c.Path
		if c.MoveTo != "" {
			target = c.MoveTo
		} else if real, err := filepath.EvalSymlinks(c.Path); err == nil {
			target = real
		}
		mode := fs.FileMode(0o644)
		if st, err := os.Stat(c.Path); err == nil {
			mode = st.Mode().Perm()
		}
		if err := u.mkdirs(target); err != nil {
			return fmt.Errorf("update %s: %w", target, err)
		}
		if err := u.remember(target); err != nil {
			return fmt.Errorf("update %s: %w", target, err)
		}
		if err := writeFile(target, c.New, mode); err != nil {
			return fmt.Errorf("update %s: %w", target, err)
		}
		if c.MoveTo != "" {
			if err := u.remember(c.Path); err != nil {
				return fmt.Errorf("move %s: %w", c.Path, err)
			}
			if err := os.Remove(c.Path); err != nil {
				return fmt.Errorf("move %s: %w", c.Path, err)
			}
		}
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
			err = os.Remove(s.path)
		case s.existed:
			err = writeFile(s.path, string(s.content), s.mode)
		default:
			if err = os.Remove(s.path); errors.Is(err, fs.ErrNotExist) {
				err = nil
			}
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// writeFile replaces path atomically: a temporary file in the same
// directory, then a rename.
func writeFile(path, content string, mode fs.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".grove-patch-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	_, werr := tmp.WriteString(content)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(name)
		return err
	}
	if err := os.Chmod(name, mode); err != nil {
		_ = os.Remove(name)
		return err
	}
	if err := os.Rename(name, path); err != nil {
		_ = os.Remove(name)
		return err
	}
	return nil
}
