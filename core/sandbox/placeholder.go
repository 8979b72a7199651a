package sandbox

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"syscall"
)

// Issue 21, fourth pass: a protected name that does not exist yet (a
// `.git` in a subdirectory of a repository, `.grove/agents` in a project
// that had none) could be created by a command and filled with a hook or
// an agent definition that runs, unsandboxed, the next time the user runs
// git or grove there. Landlock only grants whole hierarchies and a
// read-only mount needs a mount point, so before a namespaced
// workspace-write helper starts, grove makes an empty directory for each
// absent protected name at the top of every scanned root; the helper then
// binds it read-only like any protected path (bindProtectedReadOnly): it
// can be neither filled, removed nor renamed inside the sandbox. As
// Codex does for its bubblewrap mount points, the placeholders are
// removed when the last grove using them exits. Empty directories are
// invisible to `git status` and git's discovery skips an empty `.git`
// (no HEAD), and grove's knows its own (IsRepoMarker). Deeper new names are caught
// after each command (quarantine.go).

// placeholderDir holds, per placeholder, a marker file per grove process
// using it, and "created" when a grove made it (only those are removed).
func placeholderDir(path string) string {
	h := fnv.New64a()
	_, _ = io.WriteString(h, path)
	return filepath.Join(os.TempDir(), "grove-placeholders", strconv.FormatUint(h.Sum64(), 16))
}

var placeholders struct {
	mu    sync.Mutex
	paths map[string]string // claimed by this process: path → its marker dir
}

// claimPlaceholders makes the absent protected names at the top of each
// scanned root and the absent configuration directories inside the roots
// (empty directories) and registers this process as a user of them and
// of empty ones another grove made. A place this user cannot write is
// skipped: its commands cannot create the name there either.
func claimPlaceholders(roots, homes []string) error {
	placeholders.mu.Lock()
	defer placeholders.mu.Unlock()
	var want []string
	for _, r := range scannedRoots(roots) {
		for _, name := range ProtectedNames {
			if !slices.Contains(protectedFiles, name) {
				want = append(want, filepath.Join(r, name))
			}
		}
	}
	for _, h := range homes {
		// A configuration directory not there yet (CODEX_HOME in the
		// project) would be read at the next start once a command made it.
		if _, err := os.Stat(filepath.Dir(h)); err == nil {
			want = append(want, h)
		}
	}
	for _, p := range want {
		if placeholders.paths[p] != "" {
			continue
		}
		created, err := makePlaceholder(p)
		if err != nil {
			return err
		}
		if !created && !isEmptyDir(p) {
			continue // the user's own: bound read-only as found
		}
		dir, err := registerPlaceholder(p, created)
		if err != nil {
			return err
		}
		if placeholders.paths == nil {
			placeholders.paths = map[string]string{}
		}
		placeholders.paths[p] = dir
	}
	return nil
}

// makePlaceholder creates p as an empty directory unless something (a
// file, a link, a directory) is there already.
func makePlaceholder(p string) (bool, error) {
	if _, err := os.Lstat(p); err == nil {
		return false, nil
	}
	err := os.Mkdir(p, 0o755)
	if errors.Is(err, os.ErrExist) || errors.Is(err, os.ErrPermission) || errors.Is(err, syscall.EROFS) {
		// There now, or not creatable by this user: nor by its commands.
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("make the read-only placeholder %s (keeps a command from creating it): %w", p, err)
	}
	return true, nil
}

func registerPlaceholder(p string, created bool) (string, error) {
	dir := placeholderDir(p)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("register the placeholder %s: %w", p, err)
	}
	if created {
		if err := os.WriteFile(filepath.Join(dir, "created"), []byte(p), 0o600); err != nil {
			return "", fmt.Errorf("register the placeholder %s: %w", p, err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, strconv.Itoa(os.Getpid())), nil, 0o600); err != nil {
		return "", fmt.Errorf("register the placeholder %s: %w", p, err)
	}
	return dir, nil
}

// releasePlaceholders drops this process's claims and removes each
// placeholder a grove created that no live grove uses and that is still
// an empty directory. The helpers binding them must be gone: removing a
// mount point detaches the mount in every namespace.
func releasePlaceholders() {
	placeholders.mu.Lock()
	defer placeholders.mu.Unlock()
	for p, dir := range placeholders.paths {
		_ = os.Remove(filepath.Join(dir, strconv.Itoa(os.Getpid())))
		if placeholderInUse(dir) {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, "created")); err == nil && isEmptyDir(p) {
			_ = os.Remove(p)
		}
		_ = os.RemoveAll(dir)
	}
	placeholders.paths = nil
}

// placeholderInUse reports whether a live process holds a marker; stale
// markers (a grove killed with -9) are removed on the way.
func placeholderInUse(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if err := syscall.Kill(pid, 0); err == nil || errors.Is(err, syscall.EPERM) {
			return true
		}
		_ = os.Remove(filepath.Join(dir, e.Name()))
	}
	return false
}

func isEmptyDir(p string) bool {
	st, err := os.Lstat(p)
	if err != nil || !st.IsDir() {
		return false
	}
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	_, err = f.Readdirnames(1)
	return errors.Is(err, io.EOF)
}

// IsRepoMarker reports whether dir holds a `.git` that makes it a
// repository root for grove's discovery (instructions, hooks, skills,
// MCP, templates): anything named .git but an empty directory a grove
// made as a read-only placeholder (git itself skips an empty .git).
func IsRepoMarker(dir string) bool {
	p := filepath.Join(dir, ".git")
	if _, err := os.Stat(p); err != nil {
		return false
	}
	if !isEmptyDir(p) {
		return true
	}
	_, err := os.Stat(filepath.Join(placeholderDir(p), "created"))
	return err != nil
}
