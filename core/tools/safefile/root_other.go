//go:build !linux

package safefile

import (
	"errors"
	"io/fs"
	"os"
)

// Root wraps os.Root, which keeps names beneath the directory (symlinks
// that stay inside are followed); see root.go.
type Root struct {
	path string
	r    *os.Root
}

// OpenRoot opens dir, an absolute path.
func OpenRoot(dir string) (*Root, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &Root{path: dir, r: r}, nil
}

// Path is the directory the root was opened at.
func (r *Root) Path() string { return r.path }

// Close releases the directory.
func (r *Root) Close() error { return r.r.Close() }

// Lstat reports rel's mode without following a final symlink.
func (r *Root) Lstat(rel string) (fs.FileMode, error) {
	if err := checkRel(rel); err != nil {
		return 0, &fs.PathError{Op: "lstat", Path: joinRoot(r.path, rel), Err: err}
	}
	st, err := r.r.Lstat(rel)
	if err != nil {
		return 0, err
	}
	return st.Mode(), nil
}

// ReadFile reads the file rel.
func (r *Root) ReadFile(rel string) ([]byte, error) { return r.ReadFileMax(rel, -1) }

// ReadFileMax is ReadFile that stops after max bytes (max < 0: no bound)
// with an error wrapping ErrTooLarge.
func (r *Root) ReadFileMax(rel string, max int64) ([]byte, error) {
	if err := checkRel(rel); err != nil {
		return nil, &fs.PathError{Op: "read", Path: joinRoot(r.path, rel), Err: err}
	}
	f, err := r.r.OpenFile(rel, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readMax(f, max)
}

// WriteFile replaces rel atomically with data.
func (r *Root) WriteFile(rel string, data []byte, perm fs.FileMode) error {
	dir, base, err := splitRel(rel)
	if err != nil {
		return &fs.PathError{Op: "write", Path: joinRoot(r.path, rel), Err: err}
	}
	var tmp string
	var f *os.File
	for range 100 {
		tmp = joinRel(dir, tempName())
		if f, err = r.r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600); !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm.Perm())
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = r.r.Rename(tmp, joinRel(dir, base))
	}
	if err != nil {
		_ = r.r.Remove(tmp)
	}
	return err
}

func joinRel(dir, base string) string {
	if dir == "." {
		return base
	}
	return dir + "/" + base
}

// Mkdir creates the directory rel.
func (r *Root) Mkdir(rel string, perm fs.FileMode) error {
	if err := checkRel(rel); err != nil {
		return &fs.PathError{Op: "mkdir", Path: joinRoot(r.path, rel), Err: err}
	}
	return r.r.Mkdir(rel, perm)
}

// Readlink returns the target of the symlink rel.
func (r *Root) Readlink(rel string) (string, error) {
	if err := checkRel(rel); err != nil {
		return "", &fs.PathError{Op: "readlink", Path: joinRoot(r.path, rel), Err: err}
	}
	return r.r.Readlink(rel)
}

// Symlink creates rel as a symlink to target (which is not followed).
func (r *Root) Symlink(target, rel string) error {
	if err := checkRel(rel); err != nil {
		return &fs.PathError{Op: "symlink", Path: joinRoot(r.path, rel), Err: err}
	}
	return r.r.Symlink(target, rel)
}

// Remove removes the file, symlink or empty directory rel.
func (r *Root) Remove(rel string) error {
	if err := checkRel(rel); err != nil {
		return &fs.PathError{Op: "remove", Path: joinRoot(r.path, rel), Err: err}
	}
	return r.r.Remove(rel)
}
