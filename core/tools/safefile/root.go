package safefile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"
)

// A Root is an open directory that confines every operation made through
// it: names are relative, and on Linux each one is opened with
// openat2(RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS) from the directory's fd, so
// the kernel refuses a name that leaves the directory or crosses a symlink,
// however the tree changes between a check and the write. Callers resolve
// symlinks once, when they check a path, and then write the resolved name.
//
// Methods: Lstat, ReadFile, WriteFile (atomic: temporary file and rename in
// the same directory), Mkdir, Remove, Close. Errors are *fs.PathError
// values naming the full path, so errors.Is(err, fs.ErrNotExist) works.

// TempPrefix starts the name of every temporary file WriteFile creates.
const TempPrefix = ".grove-patch-"

// ErrEscape reports a name that crossed a symlink or left the root: the
// tree changed after the path was checked.
var ErrEscape = errors.New("a symlink or a path outside the root is in the way (the tree changed after the path was checked)")

// checkRel accepts a clean relative name with no ".." component.
func checkRel(rel string) error {
	switch {
	case rel == "" || filepath.IsAbs(rel) || strings.HasPrefix(rel, "/"):
		return fmt.Errorf("%q is not a relative name", rel)
	case path.Clean(rel) != rel:
		return fmt.Errorf("%q is not a clean name", rel)
	case rel == ".." || strings.HasPrefix(rel, "../") || strings.Contains(rel, "/../") || strings.HasSuffix(rel, "/.."):
		return fmt.Errorf("%q leaves its root", rel)
	}
	return nil
}

// splitRel returns the parent directory (possibly ".") and the last name.
func splitRel(rel string) (dir, base string, err error) {
	if err := checkRel(rel); err != nil {
		return "", "", err
	}
	if rel == "." {
		return "", "", errors.New("the root itself has no parent here")
	}
	return path.Dir(rel), path.Base(rel), nil
}

func tempName() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return TempPrefix + hex.EncodeToString(b[:])
}

func joinRoot(root, rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) }
