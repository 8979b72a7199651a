package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/grovecli/grove/core/config"
	"github.com/grovecli/grove/core/project"
	"github.com/grovecli/grove/core/shellenv"
	"github.com/grovecli/grove/core/tools"
	"github.com/grovecli/grove/core/tools/safefile"
	"github.com/grovecli/grove/protocol"
)

// ProjectFile is the name of Claude Code's project MCP file.
const ProjectFile = ".mcp.json"

// projectOrigin says which project file named a server.
type projectOrigin struct {
	file        string // absolute path of the .mcp.json
	root        string // the project directory
	fingerprint string // hash of the server's table: a changed entry asks again
	// As the project file writes them (unexpanded), for the prompt.
	env, headers map[string]string
	cwd          string
	as           config.MCPServer // command, args, url as written
}

// projectServer is Claude Code's mcpServers entry.
type projectServer struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	Cwd     string            `json:"cwd"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
}

// FindProjectFile walks up from cwd to the nearest directory holding .git
// and returns the first .mcp.json on the way ("" if none).
func FindProjectFile(cwd string) string {
	dir, err := filepath.Abs(cwd)
	if err != nil {
		return ""
	}
	for _, d := range project.Chain(dir) {
		p := filepath.Join(d, ProjectFile)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// LoadProjectFile reads a .mcp.json. Entries that are invalid are skipped
// with a warning; ${VAR} and ${VAR:-default} expand as in Claude Code, but
// only from the scrubbed environment commands get (projectLookup): the
// file is model-writable, and a reference to grove's provider key or a
// token must not carry it into a server's arguments, the approval prompt,
// a client or a rollout.
func LoadProjectFile(path string) (map[string]config.MCPServer, map[string]*projectOrigin, []string, error) {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	data, err := safefile.ReadForModel(path, safefile.ReadPolicy{MaxBytes: 1 << 20})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("read %s: %w", path, err)
	}
	var doc struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, nil, nil, fmt.Errorf("parse %s: %w", path, err)
	}
	servers := map[string]config.MCPServer{}
	origins := map[string]*projectOrigin{}
	var warnings []string
	names := make([]string, 0, len(doc.MCPServers))
	for n := range doc.MCPServers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		raw := doc.MCPServers[name]
		var ps projectServer
		if err := json.Unmarshal(raw, &ps); err != nil {
			warnings = append(warnings, fmt.Sprintf("%s: mcpServers.%s: %v; server ignored", path, name, err))
			continue
		}
		x := newProjectExpander()
		cfg := config.MCPServer{Command: x.expand(ps.Command), URL: x.expand(ps.URL)}
		for _, a := range ps.Args {
			cfg.Args = append(cfg.Args, x.expand(a))
		}
		cfg.Env = x.expandMap(ps.Env)
		cfg.Cwd = x.expand(ps.Cwd)
		if cfg.Cwd != "" && !filepath.IsAbs(cfg.Cwd) {
			cfg.Cwd = filepath.Join(filepath.Dir(path), cfg.Cwd)
		}
		cfg.HTTPHeaders = x.expandMap(ps.Headers)
		for _, ref := range x.withheld {
			warnings = append(warnings, fmt.Sprintf("%s: mcpServers.%s: ${%s} was not expanded: a project file gets no secrets from grove's environment (the model can write it); to pass one, configure the server in [mcp_servers] of config.toml (env_vars, bearer_token_env_var)", path, name, ref))
		}
		switch ps.Type {
		case "", "stdio", "http", "streamable-http":
		case "sse":
			warnings = append(warnings, fmt.Sprintf("%s: mcpServers.%s: the legacy SSE transport is not supported; server ignored", path, name))
			continue
		default:
			warnings = append(warnings, fmt.Sprintf("%s: mcpServers.%s: unknown type %q; server ignored", path, name, ps.Type))
			continue
		}
		if err := cfg.Validate(name); err != nil {
			warnings = append(warnings, fmt.Sprintf("%s: %v; server ignored", path, strings.TrimPrefix(err.Error(), "mcp_servers.")))
			continue
		}
		sum := sha256.Sum256(raw)
		servers[name] = cfg
		origins[name] = &projectOrigin{file: path, root: filepath.Dir(path), fingerprint: hex.EncodeToString(sum[:]),
			env: ps.Env, headers: ps.Headers, cwd: ps.Cwd,
			as: config.MCPServer{Command: ps.Command, Args: ps.Args, URL: ps.URL}}
	}
	return servers, origins, warnings, nil
}

var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}`)

// projectExpander expands ${VAR} references of a project file from the
// scrubbed environment (shellenv.Environ: what a sandboxed command sees);
// withheld names the references grove's own environment would have
// filled (a secret it keeps).
type projectExpander struct {
	env      map[string]string
	withheld []string
}

func newProjectExpander() *projectExpander {
	x := &projectExpander{env: map[string]string{}}
	for _, kv := range shellenv.Environ(nil) {
		if k, v, ok := strings.Cut(kv, "="); ok {
			x.env[k] = v
		}
	}
	return x
}

func (x *projectExpander) expand(s string) string {
	return envRef.ReplaceAllStringFunc(s, func(m string) string {
		g := envRef.FindStringSubmatch(m)
		if v, ok := x.env[g[1]]; ok {
			return v
		}
		if _, ok := os.LookupEnv(g[1]); ok && !slices.Contains(x.withheld, g[1]) {
			x.withheld = append(x.withheld, g[1])
		}
		return g[2]
	})
}

func (x *projectExpander) expandMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = x.expand(v)
	}
	return out
}

// approvalStore remembers, per project, the project servers the user
// approved: $GROVE_HOME/mcp_project_approvals.json holds project dir,
// server name and the approval's fingerprint (never values): the entry
// and the project files it runs (currentFingerprint).
type approvalStore struct {
	mu   sync.Mutex
	path string // "" = remember nothing on disk
}

type approvalRecord struct {
	Project     string `json:"project"`
	Server      string `json:"server"`
	Fingerprint string `json:"fingerprint"`
}

func (a *approvalStore) load() ([]approvalRecord, error) {
	data, err := os.ReadFile(a.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", a.path, err)
	}
	var recs []approvalRecord
	if err := json.Unmarshal(data, &recs); err != nil {
		return nil, fmt.Errorf("parse %s: %w", a.path, err)
	}
	return recs, nil
}

func (a *approvalStore) approved(o *projectOrigin, server, fp string) bool {
	if a.path == "" {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	recs, err := a.load()
	if err != nil {
		return false
	}
	for _, r := range recs {
		if r.Project == o.root && r.Server == server && r.Fingerprint == fp {
			return true
		}
	}
	return false
}

func (a *approvalStore) remember(o *projectOrigin, server, fp string) error {
	if a.path == "" {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	recs, err := a.load()
	if err != nil {
		return err
	}
	kept := recs[:0]
	for _, r := range recs {
		if r.Project != o.root || r.Server != server {
			kept = append(kept, r)
		}
	}
	kept = append(kept, approvalRecord{Project: o.root, Server: server, Fingerprint: fp})
	data, err := json.MarshalIndent(kept, "", "  ")
	if err != nil {
		return err
	}
	tmp := a.path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return fmt.Errorf("write %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, a.path); err != nil {
		return fmt.Errorf("save %s: %w", a.path, err)
	}
	return nil
}

// approveProject asks, the first time, before a project file's server
// runs: through the engine's approval path of the thread about to use it.
// "Approve" is remembered for the project, "approve for session" for this
// grove process only.
func (m *Manager) approveProject(ctx context.Context, env *tools.Env, s *server, fp string, files []string) (bool, error) {
	if m.approvals.approved(s.project, s.name, fp) {
		return true, nil
	}
	if env == nil || env.Approve == nil || env.ApprovalPolicy == protocol.ApprovalNever {
		return false, fmt.Errorf("MCP server %s from %s was not started: a project server runs only after you approve it once, and no one can approve here (approve it in an interactive grove session, or copy it into [mcp_servers] in config.toml)", s.name, s.project.file)
	}
	reason := fmt.Sprintf("%s asks grove to start the MCP server %q, outside the sandbox. Approve to remember it for this project; approve for session to allow it until grove exits.", s.project.file, s.name)
	if d := s.project.describeEntry(files); d != "" {
		reason += " " + d + "."
	}
	// The command as the file writes it: ${VAR} references unexpanded, so
	// no value from the environment reaches the prompt, a client or a
	// rollout.
	req := protocol.ApprovalRequest{Kind: protocol.ApprovalExec, Command: describeServer(s.project.as), Cwd: s.project.root, Reason: reason}
	if s.cfg.Cwd != "" {
		req.Cwd = s.cfg.Cwd
	}
	d, err := env.Approve(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			return false, fmt.Errorf("MCP server %s from %s was not started: %w", s.name, s.project.file, err)
		}
		// A headless session cannot ask: say how to approve instead.
		return false, fmt.Errorf("MCP server %s from %s was not started: it needs your approval once and this session cannot ask (approve it in an interactive grove session, or copy it into [mcp_servers] in config.toml)", s.name, s.project.file)
	}
	switch d {
	case protocol.DecisionApproved:
		if err := m.approvals.remember(s.project, s.name, fp); err != nil {
			m.logWarning(fmt.Sprintf("MCP server %s: approval not saved: %v", s.name, err))
		}
		return true, nil
	case protocol.DecisionApprovedForSession:
		return true, nil
	}
	return false, fmt.Errorf("MCP server %s from %s was not started: you declined it", s.name, s.project.file)
}

// describeServer is the command line (or URL) shown when asking.
func describeServer(c config.MCPServer) string {
	if c.URL != "" {
		return "connect to MCP server " + c.URL
	}
	parts := []string{shellQuote(c.Command)}
	for _, a := range c.Args {
		parts = append(parts, shellQuote(a))
	}
	return strings.Join(parts, " ")
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '-' || r == '_' || r == '.' || r == '/' || r == '@' || r == '=' || r == ':' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9'))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
