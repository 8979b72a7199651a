package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Issue 21, fourth pass: a reviewed hook runs outside the sandbox, but the
// script it names (`bash scripts/pre.sh`) sits in the workspace, where a
// sandboxed command may rewrite it; the next tool call then ran the
// model's code as the user. Codex's trust hash covers the declaration
// only, so grove also fingerprints the files inside the project (or the
// session's cwd) that the command names, records that fingerprint with a
// review (grove_files_hash) and runs the hook only while the files match
// it — checked again before every run. Files those files read in turn
// (a sourced library) are not covered.

// namedFiles lists, sorted, the regular files inside root or cwd that a
// hook command names: each word (quotes removed, `--opt=path` split,
// $CLAUDE_PROJECT_DIR expanded) resolved against cwd.
func namedFiles(command, cwd, root string) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range strings.FieldsFunc(command, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == ';' || r == '&' || r == '|' }) {
		w = strings.Trim(w, `'"()`)
		if _, v, ok := strings.Cut(w, "="); ok && strings.HasPrefix(w, "-") {
			w = v
		}
		for _, v := range []string{"${CLAUDE_PROJECT_DIR}", "$CLAUDE_PROJECT_DIR"} {
			w = strings.ReplaceAll(w, v, root)
		}
		if w == "" || strings.ContainsAny(w, "$`*?") {
			continue
		}
		p := w
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil || seen[real] {
			continue
		}
		if st, err := os.Stat(real); err != nil || !st.Mode().IsRegular() {
			continue
		}
		if inside(root, real) || inside(cwd, real) {
			seen[real] = true
			out = append(out, real)
		}
	}
	sort.Strings(out)
	return out
}

func inside(dir, p string) bool {
	if dir == "" {
		return false
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// filesHash is the fingerprint of files (path and content); "" for none.
// A file that cannot be read hashes as missing, which never matches a
// review of it.
func filesHash(files []string) string {
	if len(files) == 0 {
		return ""
	}
	h := sha256.New()
	for _, f := range files {
		h.Write([]byte(f))
		h.Write([]byte{0})
		data, err := os.ReadFile(f)
		if err != nil {
			h.Write([]byte("\x00missing\x00"))
			continue
		}
		sum := sha256.Sum256(data)
		h.Write(sum[:])
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}
