// Package project finds a project's repository root and the chain of directories from the
// working directory up to it: the one walk every discovery (instructions, skills, hooks,
// MCP's .mcp.json, role templates) shares.
package project

import (
	"os"
	"path/filepath"
	"sync/atomic"
)

// grovePlaceholder, when set, tells whether a `.git` path is an empty directory a grove made
// as a read-only placeholder (core/sandbox sets it): such a `.git` marks no repository, as an
// empty `.git` does not for git itself.
var grovePlaceholder atomic.Pointer[func(gitPath string) bool]

// SetPlaceholderCheck installs the placeholder test (core/sandbox, at init). It lives here so
// that the packages below the sandbox can find roots without importing it.
func SetPlaceholderCheck(f func(gitPath string) bool) { grovePlaceholder.Store(&f) }

// IsRoot reports whether dir holds a `.git` (directory or file) that makes it a repository
// root for grove's discovery.
func IsRoot(dir string) bool {
	p := filepath.Join(dir, ".git")
	if _, err := os.Stat(p); err != nil {
		return false
	}
	if f := grovePlaceholder.Load(); f != nil && (*f)(p) {
		return false
	}
	return true
}

// Root is the nearest directory from cwd up that IsRoot, and whether there is one.
func Root(cwd string) (string, bool) {
	for d := filepath.Clean(cwd); ; {
		if IsRoot(d) {
			return d, true
		}
		up := filepath.Dir(d)
		if up == d {
			return "", false
		}
		d = up
	}
}

// Chain lists the directories from cwd up to its repository root, nearest first; outside a
// repository only cwd itself (a parent of an unrelated directory, such as a shared /tmp, is
// never searched).
func Chain(cwd string) []string {
	cwd = filepath.Clean(cwd)
	root, ok := Root(cwd)
	if !ok {
		return []string{cwd}
	}
	var dirs []string
	for d := cwd; ; d = filepath.Dir(d) {
		dirs = append(dirs, d)
		if d == root {
			return dirs
		}
	}
}
