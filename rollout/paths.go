package rollout

import (
	"os"
	"path/filepath"
	"strings"
)

// sessionsDir is the folder of rollouts under a grove home.
const sessionsDir = "sessions"

// storedPath is how a rollout path is written to the index: relative to the
// home when it lies inside it, so a home that is moved, copied or restored
// elsewhere still finds its own files (and never writes into the original's).
func storedPath(home, path string) string {
	if path == "" || !filepath.IsAbs(path) {
		return path
	}
	if rel, ok := within(home, path); ok {
		return rel
	}
	return path
}

// resolvePath turns an index's rollout path back into a file to open. A
// relative path is relative to home. An absolute one (written by an older
// grove, or by this home before it moved) is remapped onto this home's
// sessions/ when it names a rollout under some other home's sessions/ and
// this home has that file: a copy reads and appends to its own rollouts.
func resolvePath(home, stored string) string {
	if stored == "" {
		return ""
	}
	if !filepath.IsAbs(stored) {
		return joinRelative(home, stored)
	}
	if _, ok := within(home, stored); ok {
		return stored
	}
	if tail, ok := sessionsTail(stored); ok {
		local := filepath.Join(home, tail)
		if st, err := os.Stat(local); err == nil && st.Mode().IsRegular() {
			return local
		}
	}
	return stored
}

// joinRelative is filepath.Join(home, rel) without Join's Clean pass
// when nothing needs cleaning, the case of every path AppendIndex stores
// (a listing of 100,000 sessions resolves each one; Clean was a tenth of
// the picker's filter).
func joinRelative(home, rel string) string {
	if home == "" || home == "/" || !isCleanPath(home) || !isCleanPath(rel) {
		return filepath.Join(home, rel)
	}
	return home + string(filepath.Separator) + rel
}

// isCleanPath reports whether filepath.Clean would leave p unchanged by a
// conservative test: no empty, "." or ".." element and no trailing
// separator (other names starting with a dot fail it too, and are cleaned).
func isCleanPath(p string) bool {
	sep := string(filepath.Separator)
	return p != "" && !strings.HasSuffix(p, sep) && !strings.HasPrefix(p, ".") &&
		!strings.Contains(p, sep+sep) && !strings.Contains(p, sep+".")
}

// within reports path relative to dir when path lies inside dir.
func within(dir, path string) (string, bool) {
	if dir == "" {
		return "", false
	}
	rel, err := filepath.Rel(filepath.Clean(dir), filepath.Clean(path))
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}

// sessionsTail returns "sessions/…" from the last sessions/ component of an
// absolute rollout path.
func sessionsTail(path string) (string, bool) {
	sep := string(filepath.Separator)
	i := strings.LastIndex(path, sep+sessionsDir+sep)
	if i < 0 {
		return "", false
	}
	return path[i+1:], true
}
