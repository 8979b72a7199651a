package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/grovecli/grove/core/config"
)

// maxHashedFile bounds what is read of one file the approval covers; a
// larger file is hashed by its first bytes, size and modification time.
const maxHashedFile = 64 << 20

// Issue 21: the user approved `sh srv.sh` once, a sandboxed command then
// rewrote srv.sh, and the next session started it, unsandboxed, without
// asking. An approval therefore covers what will run: the whole entry
// (command, args, env, headers, cwd: the raw JSON) and the contents of
// every file inside the project that the command or an argument names.

// fingerprint is the approval's hash of the entry and the named files as
// they are now, and the files it read (relative to the project root).
func (o *projectOrigin) currentFingerprint(cfg config.MCPServer) (string, []string) {
	h := sha256.New()
	fmt.Fprintf(h, "entry %s\n", o.fingerprint)
	files := o.namedFiles(cfg)
	var shown []string
	for _, f := range files {
		rel, _ := filepath.Rel(o.root, f)
		fmt.Fprintf(h, "file %s %s\n", rel, hashFile(f))
		shown = append(shown, rel)
	}
	return hex.EncodeToString(h.Sum(nil)), shown
}

// namedFiles lists the regular files inside the project root that the
// command or an argument names (relative to the server's cwd, else the
// root; `--opt=path` counts too), sorted and unique.
func (o *projectOrigin) namedFiles(cfg config.MCPServer) []string {
	base := o.root
	if cfg.Cwd != "" {
		base = cfg.Cwd
		if !filepath.IsAbs(base) {
			base = filepath.Join(o.root, base)
		}
	}
	seen := map[string]bool{}
	var out []string
	for _, w := range append([]string{cfg.Command}, cfg.Args...) {
		cands := []string{w}
		if _, v, ok := strings.Cut(w, "="); ok {
			cands = append(cands, v)
		}
		for _, c := range cands {
			if c == "" || strings.HasPrefix(c, "-") && !strings.Contains(c, "/") {
				continue
			}
			p := c
			if !filepath.IsAbs(p) {
				p = filepath.Join(base, p)
			}
			p = filepath.Clean(p)
			if !within(o.root, p) || seen[p] {
				continue
			}
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	sort.Strings(out)
	return out
}

// hashFile is a file's content hash ("unreadable: ..." if it cannot be
// read: a change to readable asks again too).
func hashFile(p string) string {
	f, err := os.Open(p)
	if err != nil {
		return "unreadable"
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, maxHashedFile))
	if err != nil {
		return "unreadable"
	}
	if n == maxHashedFile {
		if st, err := f.Stat(); err == nil {
			fmt.Fprintf(h, "size %d mtime %d", st.Size(), st.ModTime().UnixNano())
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// describeEntry is what the approval prompt shows besides the command:
// the env and headers as the project file writes them (references like
// ${TOKEN} unexpanded, so no secret reaches the prompt or a rollout),
// the cwd, and the files the approval covers.
func (o *projectOrigin) describeEntry(files []string) string {
	var parts []string
	if s := sortedPairs(o.env); s != "" {
		parts = append(parts, "env: "+s)
	}
	if s := sortedPairs(o.headers); s != "" {
		parts = append(parts, "headers: "+s)
	}
	if o.cwd != "" {
		parts = append(parts, "cwd: "+o.cwd)
	}
	if len(files) > 0 {
		parts = append(parts, "runs project files (asks again when they change): "+strings.Join(files, ", "))
	}
	return strings.Join(parts, "; ")
}

func sortedPairs(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		keys[i] = k + "=" + shellQuote(m[k])
	}
	return strings.Join(keys, " ")
}
