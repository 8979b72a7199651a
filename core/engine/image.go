package engine

import (
	"encoding/base64"
	"fmt"
	"path/filepath"

	"github.com/grovecli/grove/core/sandbox"
	"github.com/grovecli/grove/core/tools/safefile"
)

const maxImageBytes = 20 << 20

// readPolicy is how grove reads files for t's model: the roots t's model
// can write — its cwd, the temp dir and the sandbox's writable roots —
// whatever the mode (a danger-full-access model could have planted a link
// there too).
func (t *Thread) readPolicy(maxBytes int64) safefile.ReadPolicy {
	return modelReadPolicy(t.cwd, sandbox.WritableRoots(t.sandbox, t.cwd), maxBytes)
}

// modelReadPolicy is the read policy of a model working in cwd with the
// given writable roots.
func modelReadPolicy(cwd string, writable []string, maxBytes int64) safefile.ReadPolicy {
	var roots []string
	for _, r := range append(append([]string{cwd}, safefile.TempDirs()...), writable...) {
		if real, err := safefile.Resolve(r, false); err == nil {
			roots = append(roots, real)
		}
	}
	return safefile.ReadPolicy{Roots: roots, MaxBytes: maxBytes}
}

// localImageURL reads an image file (relative paths against the thread's
// cwd) into a data: URL for the model, through the pinned model read: a
// screenshot.png linked to /proc/self/environ is refused, and the type
// comes from the content, never the name.
func (t *Thread) localImageURL(path string) (string, error) {
	if path == "" {
		return "", fmt.Errorf("local_image needs path")
	}
	abs := path
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(t.cwd, abs)
	}
	typ, data, err := safefile.ReadImage(abs, t.readPolicy(maxImageBytes))
	if err != nil {
		return "", fmt.Errorf("local_image %w", err)
	}
	return "data:" + typ + ";base64," + base64.StdEncoding.EncodeToString(data), nil
}
