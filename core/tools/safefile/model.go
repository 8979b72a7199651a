package safefile

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// Files grove reads on the model's behalf (images a model or a user
// attaches, spawn_agent items, AGENTS.md, SKILL.md, agent templates) are
// read by grove itself, outside the sandbox, with grove's own view of
// the system: its /proc/self (the unscrubbed environment, memory maps),
// devices and pseudo-filesystems a sandboxed command never sees. A model
// can plant `screenshot.png -> /proc/self/environ`; ReadForModel is the
// one way those files are read, and it refuses what a command could not
// have shown the model itself.

// ErrRefused reports a file grove will not read for the model.
var ErrRefused = errors.New("refused")

// ReadPolicy says where a read for the model may go.
type ReadPolicy struct {
	// Roots are the directories the model can write (the thread's cwd and
	// writable roots, symlinks resolved): a symlink found inside one of
	// them was possibly planted by the model, so the path it leads to must
	// stay inside the roots. A symlink outside every root is the user's.
	Roots []string
	// MaxBytes caps the file's size (0: DefaultMaxBytes).
	MaxBytes int64
}

// DefaultMaxBytes is the cap when a policy sets none.
const DefaultMaxBytes = 20 << 20

// deniedTrees hold grove's own process state, kernel interfaces and
// devices: never read for the model whatever the roots say.
var deniedTrees = []string{"/proc", "/sys", "/dev"}

func refused(path, why string) error {
	return fmt.Errorf("%s: %w: %s", path, ErrRefused, why)
}

// ReadForModel reads the regular file path (absolute) under p: the path is
// resolved once, checked (not under /proc, /sys or /dev, no symlink in a
// root leading out of the roots), then opened without following any
// symlink, so a link swapped in after the check fails the read; the open
// file must be a regular file on an ordinary filesystem and within the
// size cap (FIFOs, devices and procfs files are refused, never waited on).
func ReadForModel(path string, p ReadPolicy) ([]byte, error) {
	if !filepath.IsAbs(path) {
		return nil, fmt.Errorf("%s: not an absolute path", path)
	}
	real, err := resolveChecked(filepath.Clean(path), p.Roots)
	if err != nil {
		return nil, err
	}
	limit := p.MaxBytes
	if limit <= 0 {
		limit = DefaultMaxBytes
	}
	return readPinned(path, real, limit)
}

// resolveChecked resolves path and applies the tree and root rules.
func resolveChecked(path string, roots []string) (string, error) {
	linkInRoot := ""
	real, err := resolveWalk(path, false, func(link string) {
		if linkInRoot == "" && insideAny(link, roots) {
			linkInRoot = link
		}
	})
	if err != nil {
		return "", err
	}
	if d := KernelTree(real); d != "" {
		return "", refused(path, fmt.Sprintf("it is in %s (grove's own process state, kernel interfaces and devices are never read for the model)", d))
	}
	if linkInRoot != "" && !insideAny(real, roots) {
		return "", refused(path, fmt.Sprintf("the symlink %s leads out of the workspace (to %s)", linkInRoot, real))
	}
	return real, nil
}

// KernelTree names the tree of /proc, /sys or /dev that holds p (clean,
// absolute, symlinks resolved), or "".
func KernelTree(p string) string {
	for _, d := range deniedTrees {
		if within(d, p) {
			return d
		}
	}
	return ""
}

func insideAny(p string, roots []string) bool {
	for _, r := range roots {
		if within(r, p) {
			return true
		}
	}
	return false
}

// within reports whether p is root or below it (both clean and absolute).
func within(root, p string) bool {
	if root == "/" {
		return true
	}
	return p == root || strings.HasPrefix(p, root+"/")
}

// Image kinds a model accepts, detected from the file's first bytes.
var imageMagic = []struct {
	mime  string
	match func([]byte) bool
}{
	{"image/png", func(b []byte) bool { return strings.HasPrefix(string(b), "\x89PNG\r\n\x1a\n") }},
	{"image/jpeg", func(b []byte) bool { return strings.HasPrefix(string(b), "\xff\xd8\xff") }},
	{"image/gif", func(b []byte) bool {
		return strings.HasPrefix(string(b), "GIF87a") || strings.HasPrefix(string(b), "GIF89a")
	}},
	{"image/webp", func(b []byte) bool {
		return len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP"
	}},
}

// ImageType names data's image type by its content ("" when it is none
// of PNG, JPEG, GIF, WebP): a name ending in .png proves nothing.
func ImageType(data []byte) string {
	for _, m := range imageMagic {
		if m.match(data) {
			return m.mime
		}
	}
	return ""
}

// ReadImage reads an image for the model under p and returns its MIME
// type, detected by content; anything else is an error.
func ReadImage(path string, p ReadPolicy) (string, []byte, error) {
	data, err := ReadForModel(path, p)
	if err != nil {
		return "", nil, err
	}
	typ := ImageType(data)
	if typ == "" {
		return "", nil, fmt.Errorf("%s: not a PNG, JPEG, GIF or WebP image (by its content)", path)
	}
	return typ, data, nil
}
