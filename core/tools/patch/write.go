package patch

import (
	"fmt"
	"os"
	"path/filepath"
)

// Write applies computed changes to disk. If a write fails midway, the
// files already changed are restored, so the patch is all or nothing.
func Write(changes []Change) error {
	type undo struct {
		path    string
		content string
		existed bool
	}
	var done []undo
	rollback := func() {
		for i := len(done) - 1; i >= 0; i-- {
			u := done[i]
			if u.existed {
				_ = os.WriteFile(u.path, []byte(u.content), 0o644)
			} else {
				_ = os.Remove(u.path)
			}
		}
	}
	record := func(path string) {
		b, err := os.ReadFile(path)
		done = append(done, undo{path: path, content: string(b), existed: err == nil})
	}
	for _, c := range changes {
		var err error
		switch c.Op {
		case OpAdd:
			record(c.Path)
			err = writeFile(c.Path, c.New, 0o644)
		case OpDelete:
			record(c.Path)
			err = os.Remove(c.Path)
		case OpUpdate:
			target := c.Path
			if c.MoveTo != "" {
				target = c.MoveTo
			}
			mode := os.FileMode(0o644)
			if st, e := os.Stat(c.Path); e == nil {
				mode = st.Mode().Perm()
			}
			record(target)
			if err = writeFile(target, c.New, mode); err == nil && c.MoveTo != "" && c.MoveTo != c.Path {
				record(c.Path)
				err = os.Remove(c.Path)
			}
		}
		if err != nil {
			rollback()
			return fmt.Errorf("write %s: %w (no files were changed)", c.Path, err)
		}
	}
	return nil
}

// writeFile writes atomically through a temp file and rename.
func writeFile(path, content string, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".grove-patch-*")
	if err != nil {
		return err
	}
	if _, err := tmp.WriteString(content); err != nil {
		_ = tmp.Close()
		_ = os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), mode); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}
