package mcp

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/grovecli/grove/core/config"
	"github.com/grovecli/grove/core/tools/safefile"
)

// Issue 31.1: `npx -y @modelcontextprotocol/server-filesystem`, started in
// the workspace, runs node_modules/@modelcontextprotocol/server-filesystem
// if one is there — and the model can plant one. Package runners (npx,
// uvx, bunx), interpreters (node's require, python's sys.path) and shells
// all resolve code from their working directory and its parents. So a
// stdio server without its own `cwd` starts in a directory no model can
// write (serverDir): its code comes from where the user installed it, not
// from the workspace. Relative paths in its command and arguments ("."
// for the project, ./server.js) keep meaning the project: they are made
// absolute first. A command that PATH resolves into the workspace is
// refused.

// serverDirName is grove's own directory servers start in.
const serverDirName = "mcp-servers"

// modelTempDirs are the temp dirs a sandboxed command of any session may
// write (/tmp and $TMPDIR, whatever this session excludes); a variable so
// tests whose fixtures live under /tmp can name their own.
var modelTempDirs = safefile.TempDirs

// modelWritable lists the directories the agents' commands can write:
// the session's roots, its cwd and the temp dir, symlinks resolved.
func (m *Manager) modelWritable() []string {
	var out []string
	for _, r := range append(append([]string{m.cwd}, modelTempDirs()...), m.roots...) {
		if r == "" || !filepath.IsAbs(r) {
			continue
		}
		if real, err := safefile.Resolve(filepath.Clean(r), false); err == nil {
			out = append(out, real)
		}
	}
	return out
}

func insideAny(p string, roots []string) bool {
	real, err := safefile.Resolve(filepath.Clean(p), false)
	if err != nil {
		return true // unknown: assume the worst
	}
	for _, r := range roots {
		if within(r, real) {
			return true
		}
	}
	return false
}

// serverDir is where a stdio server without a cwd starts: grove's own
// $GROVE_HOME/mcp-servers, else the user's home, else /, the first that
// is outside every directory the model can write (a directory outside
// them has no ancestor inside them either).
func (m *Manager) serverDir() (string, error) {
	writable := m.modelWritable()
	var cands []string
	if m.home != "" {
		cands = append(cands, filepath.Join(m.home, serverDirName))
	}
	if h, err := os.UserHomeDir(); err == nil && filepath.IsAbs(h) {
		cands = append(cands, h)
	}
	cands = append(cands, "/")
	for _, c := range cands {
		if insideAny(c, writable) {
			continue
		}
		if filepath.Base(c) == serverDirName {
			if err := os.MkdirAll(c, 0o700); err != nil {
				continue
			}
		}
		return c, nil
	}
	return "", fmt.Errorf("no directory outside the workspace to start it in (the sandbox lets the agent write everywhere: danger-full-access?); set cwd for it in config.toml")
}

// launchSpec is how a stdio server is started: the program, its
// arguments with relative paths made absolute against base (the project
// root for a project server, grove's cwd for the user's), and the
// directory. An error names what was refused.
func (m *Manager) launchSpec(s *server) (config.MCPServer, error) {
	cfg := s.cfg
	base := m.cwd
	if s.project != nil {
		base = s.project.root
	}
	writable := m.modelWritable()
	cfg.Command = absolutePath(cfg.Command, base, s.project != nil)
	args := make([]string, len(cfg.Args))
	for i, a := range cfg.Args {
		args[i] = absolutePath(a, base, s.project != nil)
	}
	cfg.Args = args
	if !strings.Contains(cfg.Command, "/") {
		if p, err := exec.LookPath(cfg.Command); err == nil && insideAny(p, writable) {
			return cfg, fmt.Errorf("its command %s resolves (through PATH) to %s, inside the workspace, which the agent can write; name a program outside it", cfg.Command, p)
		}
	}
	if cfg.Cwd != "" {
		if insideAny(cfg.Cwd, writable) {
			m.logWarning(fmt.Sprintf("MCP server %s starts in %s, inside the workspace: code it resolves from there (node_modules, .venv, a local npx package) can be changed by the agent; remove its cwd to start it outside", s.name, cfg.Cwd))
		}
		return cfg, nil
	}
	dir, err := m.serverDir()
	if err != nil {
		return cfg, err
	}
	cfg.Cwd = dir
	return cfg, nil
}

// absolutePath makes a relative path word absolute against base: ".",
// "..", "./x", "../x" (also after "--opt="), and for a project server any
// word naming an existing file under base (`node server.js`). Other words
// are left as they are.
func absolutePath(w, base string, project bool) string {
	if w == "" || base == "" || filepath.IsAbs(w) {
		return w
	}
	if opt, v, ok := strings.Cut(w, "="); ok && strings.HasPrefix(opt, "-") {
		if nv := absolutePath(v, base, project); nv != v {
			return opt + "=" + nv
		}
		return w
	}
	if w == "." || w == ".." || strings.HasPrefix(w, "./") || strings.HasPrefix(w, "../") {
		return filepath.Join(base, w)
	}
	if project && !strings.HasPrefix(w, "-") {
		p := filepath.Join(base, w)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && within(base, p) {
			return p
		}
	}
	return w
}
