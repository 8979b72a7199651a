package safefile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// maxSymlinks matches the kernel's limit before ELOOP.
const maxSymlinks = 40

// Resolve follows every symlink of the absolute path p component by
// component, like the kernel's path walk: ".." applies to the resolved
// parent, a dangling link is followed to its target, and names that do not
// exist yet are kept as written. With keepLast the final name is kept even
// if it is a symlink (for operations that replace or remove the link).
// The result is clean and absolute and, at the time of the call, crosses
// no symlink.
func Resolve(p string, keepLast bool) (string, error) {
	return resolveWalk(p, keepLast, nil)
}

// resolveWalk is Resolve, calling onLink with the location of every
// symlink it follows.
func resolveWalk(p string, keepLast bool, onLink func(link string)) (string, error) {
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("resolve %s: not an absolute path", p)
	}
	if keepLast {
		p = filepath.Clean(p)
		if p == string(filepath.Separator) {
			return p, nil
		}
		dir, err := resolveWalk(filepath.Dir(p), false, onLink)
		if err != nil {
			return "", err
		}
		return filepath.Join(dir, filepath.Base(p)), nil
	}
	pending := strings.Split(p, string(filepath.Separator))
	resolved := string(filepath.Separator)
	links := 0
	for len(pending) > 0 {
		c := pending[0]
		pending = pending[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			resolved = filepath.Dir(resolved)
			continue
		}
		next := filepath.Join(resolved, c)
		fi, err := os.Lstat(next)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			resolved = next
			continue
		}
		if onLink != nil {
			onLink(next)
		}
		if links++; links > maxSymlinks {
			return "", fmt.Errorf("resolve %s: %w", p, errors.New("too many levels of symbolic links"))
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", fmt.Errorf("resolve %s: %w", p, err)
		}
		if filepath.IsAbs(target) {
			resolved = string(filepath.Separator)
		}
		pending = append(strings.Split(target, string(filepath.Separator)), pending...)
	}
	return resolved, nil
}
