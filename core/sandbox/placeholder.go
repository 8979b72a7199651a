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
	"strings"
	"sync"
	"syscall"

	"github.com/grovecli/grove/core/project"
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
// (no HEAD), and grove's knows its own (isGrovePlaceholder). Deeper new names are caught
// after each command (quarantine.go).

// Issue 36.7 / 31.8: the bookkeeping lives in $GROVE_HOME/placeholders,
// not in $TMPDIR: a temp root is writable by every sandboxed command (one
// session's model removed another's markers), and a reboot clears it
// (the placeholders then stayed in the project for good). $GROVE_HOME is
// outside the writable roots or bound read-only (homes.go). A marker
// names its grove by pid, the kernel's start time and the boot id, so a
// reused pid or a reboot never keeps a dead grove's claim alive; "created"
// is written before the directory is made, so a grove killed at any
// point leaves a record the next grove's sweep (sweepPlaceholders)
// finishes.

// placeholderRegistry is where the records are, "" when grove has no home.
func placeholderRegistry() string {
	if h := os.Getenv("GROVE_HOME"); h != "" {
		return filepath.Join(absolute("", h), "placeholders")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".grove", "placeholders")
	}
	return ""
}

// placeholderDir holds, per placeholder, a marker file per grove process
// using it, and "created" when a grove made it (only those are removed).
func placeholderDir(path string) string {
	reg := placeholderRegistry()
	if reg == "" {
		return ""
	}
	h := fnv.New64a()
	_, _ = io.WriteString(h, path)
	return filepath.Join(reg, strconv.FormatUint(h.Sum64(), 16))
}

var placeholders struct {
	mu    sync.Mutex
	paths map[string]string // claimed by this process: path → its marker dir
	swept sync.Once
}

// claimPlaceholders makes the absent protected names at the top of each
// scanned root and the absent configuration directories inside the roots
// (empty directories) and registers this process as a user of them and
// of empty ones another grove made. A place this user cannot write is
// skipped: its commands cannot create the name there either.
func claimPlaceholders(roots, homes []string) error {
	placeholders.mu.Lock()
	defer placeholders.mu.Unlock()
	if placeholderRegistry() == "" {
		return nil // nowhere safe to keep the records: make none
	}
	placeholders.swept.Do(sweepPlaceholders)
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
		dir, err := claimPlaceholder(p)
		if err != nil {
			return err
		}
		if dir == "" {
			continue // the user's own: bound read-only as found
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

// claimPlaceholder registers this process on p, making p first when it
// is absent: marker, then "created", then the directory, each step on
// disk before the next, so no kill leaves a directory nobody recorded.
// It returns "" for a p that is someone's own (not empty, or not ours).
func claimPlaceholder(p string) (string, error) {
	dir := placeholderDir(p)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("register the placeholder %s: %w", p, err)
	}
	marker := filepath.Join(dir, selfMarker())
	if err := os.WriteFile(marker, []byte(p), 0o600); err != nil {
		_ = os.Remove(marker)
		return "", fmt.Errorf("register the placeholder %s: %w", p, err)
	}
	if _, err := os.Lstat(p); errors.Is(err, os.ErrNotExist) {
		createdFile := filepath.Join(dir, "created")
		if err := os.WriteFile(createdFile, []byte(p), 0o600); err != nil {
			_ = os.Remove(createdFile)
			_ = os.Remove(marker)
			return "", fmt.Errorf("register the placeholder %s: %w", p, err)
		}
		created, err := makePlaceholder(p)
		if err != nil {
			return "", err // recorded: the next sweep removes what is there
		}
		if !created && !isEmptyDir(p) {
			// Not creatable, or something else appeared: not a grove's.
			_ = os.Remove(createdFile)
		}
	}
	if !isEmptyDir(p) {
		_ = os.Remove(marker)
		return "", nil
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
		_ = os.Remove(filepath.Join(dir, selfMarker()))
		removeUnused(p, dir)
	}
	placeholders.paths = nil
}

// removeUnused removes the placeholder p (recorded in dir) when no live
// grove uses it and a grove made it, and then its record.
func removeUnused(p, dir string) {
	if placeholderInUse(dir) {
		return
	}
	if _, err := os.Stat(filepath.Join(dir, "created")); err == nil && isEmptyDir(p) {
		_ = os.Remove(p)
	}
	_ = os.RemoveAll(dir)
}

// sweepPlaceholders finishes what dead groves left (kill -9, a reboot, a
// full disk at the wrong moment): every recorded placeholder no live
// grove uses is removed, once per process before its first claim.
func sweepPlaceholders() {
	reg := placeholderRegistry()
	ents, err := os.ReadDir(reg)
	if err != nil {
		return
	}
	for _, e := range ents {
		dir := filepath.Join(reg, e.Name())
		p := recordedPath(dir)
		if p == "" {
			_ = os.RemoveAll(dir) // no path recorded: nothing was made
			continue
		}
		removeUnused(p, dir)
	}
}

// recordedPath is the placeholder a record is about (from "created" or
// any marker).
func recordedPath(dir string) string {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if b, err := os.ReadFile(filepath.Join(dir, e.Name())); err == nil && len(b) > 0 {
			return string(b)
		}
	}
	return ""
}

// placeholderInUse reports whether a live process holds a marker; stale
// markers (a grove killed with -9) are removed on the way.
func placeholderInUse(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if e.Name() == "created" {
			continue
		}
		if markerAlive(e.Name()) {
			return true
		}
		_ = os.Remove(filepath.Join(dir, e.Name()))
	}
	return false
}

// selfMarker names this grove: pid, kernel start time, boot id.
func selfMarker() string {
	return markerFor(os.Getpid())
}

func markerFor(pid int) string {
	return fmt.Sprintf("%d-%s-%s", pid, procStartTime(pid), bootID())
}

// markerAlive reports whether the grove a marker names still runs: the
// same boot, the pid alive with the same start time.
func markerAlive(name string) bool {
	pidText, _, ok := strings.Cut(name, "-")
	pid, err := strconv.Atoi(pidText)
	if !ok || err != nil {
		return false
	}
	return markerFor(pid) == name && syscall.Kill(pid, 0) != syscall.ESRCH
}

// procStartTime is field 22 of /proc/<pid>/stat ("" when gone).
func procStartTime(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return ""
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return ""
	}
	return f[19]
}

func bootID() string {
	b, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	return strings.TrimSpace(string(b))
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

// isGrovePlaceholder reports whether a `.git` path is an empty directory a grove made as a
// read-only placeholder: it marks no repository root for grove's discovery (instructions,
// hooks, skills, MCP, templates: core/project), as an empty .git does not for git itself.
func isGrovePlaceholder(gitPath string) bool {
	if !isEmptyDir(gitPath) {
		return false
	}
	reg := placeholderDir(gitPath)
	if reg == "" {
		return false
	}
	_, err := os.Stat(filepath.Join(reg, "created"))
	return err == nil
}

func init() { project.SetPlaceholderCheck(isGrovePlaceholder) }
