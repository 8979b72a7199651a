// Package mcp connects grove to MCP servers (the official Go SDK) and
// offers their tools to every agent of the tree as mcp__<server>__<tool>.
//
// One Manager per grove process: each configured server starts lazily the
// first time an agent is about to call the model, is shared by the whole
// tree (one process per server, calls multiplexed), restarts once if it
// dies, and stops with the Manager (its whole process group is killed). A
// server that fails becomes a warning; the rest keeps working.
package mcp

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"sync"

	"github.com/grovecli/grove/core/config"
	"github.com/grovecli/grove/core/tools"
)

// Options configures a Manager.
type Options struct {
	// Servers are the `[mcp_servers]` of config.toml.
	Servers map[string]config.MCPServer
	// Cwd is grove's working directory: where the project .mcp.json is
	// looked for and what relative paths in a server's arguments mean.
	// Stdio servers without a cwd start outside it (serverDir).
	Cwd string
	// Home is $GROVE_HOME, where project approvals are remembered ("" =
	// not remembered across runs).
	Home string
	// NoProjectFile skips the project .mcp.json.
	NoProjectFile bool
	// MaxOutput caps a result's text (default DefaultMaxOutput).
	MaxOutput int
	// Version is grove's version, sent in initialize.
	Version string
	// OnWarning, if set, also receives every warning (for a log or stderr).
	OnWarning func(string)
	// Roots are the session's workspace roots (absolute directories),
	// offered to servers as MCP roots.
	Roots []string
	// Sampler, if set, answers servers' sampling/createMessage with the
	// session's model, after the user approves each request.
	Sampler *Sampler
}

// Manager owns the MCP servers of one grove process. It is a
// tools.ToolSource.
type Manager struct {
	ctx       context.Context
	cancel    context.CancelFunc
	wg        sync.WaitGroup // connection watchers
	cwd       string
	home      string // $GROVE_HOME: holds the directory servers start in
	version   string
	maxOutput int
	onWarning func(string)
	approvals approvalStore
	progress  progressRouter
	roots     []string
	sampler   *Sampler

	servers []*server // sorted by name

	changedMu sync.Mutex
	changed   chan struct{} // closed and replaced when a tool list changes
	warnings  []string      // load-time warnings (config and .mcp.json)
	warned    map[string]bool
}

// New builds a Manager; nothing starts until an agent needs the tools.
func New(opts Options) *Manager {
	ctx, cancel := context.WithCancel(context.Background())
	m := &Manager{ctx: ctx, cancel: cancel, cwd: opts.Cwd, home: opts.Home, version: opts.Version,
		maxOutput: opts.MaxOutput, onWarning: opts.OnWarning, changed: make(chan struct{}),
		roots: opts.Roots, sampler: opts.Sampler}
	if m.maxOutput <= 0 {
		m.maxOutput = DefaultMaxOutput
	}
	if m.version == "" {
		m.version = "dev"
	}
	if opts.Home != "" {
		m.approvals.path = filepath.Join(opts.Home, "mcp_project_approvals.json")
	}
	for name, cfg := range opts.Servers {
		m.servers = append(m.servers, m.newServer(name, cfg, nil))
	}
	if !opts.NoProjectFile && opts.Cwd != "" {
		if path := FindProjectFile(opts.Cwd); path != "" {
			m.addProjectFile(path, opts.Servers)
		}
	}
	sort.Slice(m.servers, func(i, j int) bool { return m.servers[i].name < m.servers[j].name })
	return m
}

func (m *Manager) newServer(name string, cfg config.MCPServer, origin *projectOrigin) *server {
	s := &server{name: name, cfg: cfg, project: origin, m: m, state: StateIdle}
	if !cfg.IsEnabled() {
		s.state = StateDisabled
	}
	return s
}

// addProjectFile adds a project's servers; a name config.toml already
// defines keeps the config.toml one.
func (m *Manager) addProjectFile(path string, user map[string]config.MCPServer) {
	servers, origins, warns, err := LoadProjectFile(path)
	for _, w := range warns {
		m.logWarning(w)
	}
	if err != nil {
		m.logWarning(fmt.Sprintf("project MCP servers not loaded: %v", err))
		return
	}
	for name, cfg := range servers {
		if _, dup := user[name]; dup {
			m.logWarning(fmt.Sprintf("%s: server %s is also in config.toml; using config.toml's", path, name))
			continue
		}
		m.servers = append(m.servers, m.newServer(name, cfg, origins[name]))
	}
}

// logWarning keeps a load-time or background warning.
func (m *Manager) logWarning(msg string) {
	m.changedMu.Lock()
	m.warnings = append(m.warnings, msg)
	m.changedMu.Unlock()
	if m.onWarning != nil {
		m.onWarning(msg)
	}
}

// Warnings returns every warning so far, oldest first.
func (m *Manager) Warnings() []string {
	m.changedMu.Lock()
	defer m.changedMu.Unlock()
	return append([]string(nil), m.warnings...)
}

// Tools implements tools.ToolSource. With env nil it lists the tools of
// servers that are running; otherwise it first starts (concurrently) every
// enabled server that has not started, and refreshes changed tool lists.
func (m *Manager) Tools(ctx context.Context, env *tools.Env) []tools.Tool {
	if env != nil && m.ctx.Err() == nil {
		var wg sync.WaitGroup
		for _, s := range m.servers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s.ensure(ctx, env)
			}()
		}
		wg.Wait()
	}
	var out []tools.Tool
	seen := map[string]string{}
	for _, s := range m.servers {
		for _, t := range s.snapshot() {
			name := t.Spec().Name
			if other, dup := seen[name]; dup {
				// Server "a" tool "b__c" and server "a__b" tool "c" meet here.
				m.warnOnce("dup\x00"+name, fmt.Sprintf("MCP tool %s of server %s has the same name as one of server %s; only the latter is offered", name, s.name, other))
				continue
			}
			seen[name] = s.name
			out = append(out, t)
		}
	}
	return out
}

// warnOnce logs a warning the first time key is seen.
func (m *Manager) warnOnce(key, msg string) {
	m.changedMu.Lock()
	if m.warned == nil {
		m.warned = map[string]bool{}
	}
	seen := m.warned[key]
	m.warned[key] = true
	m.changedMu.Unlock()
	if !seen {
		m.logWarning(msg)
	}
}

// Status lists the servers for /mcp and `grove mcp list`.
func (m *Manager) Status() []ServerStatus {
	out := make([]ServerStatus, 0, len(m.servers))
	for _, s := range m.servers {
		out = append(out, s.status())
	}
	return out
}

// Changed returns a channel closed at the next tool-list change
// (notifications/tools/list_changed from any server).
func (m *Manager) Changed() <-chan struct{} {
	m.changedMu.Lock()
	defer m.changedMu.Unlock()
	return m.changed
}

func (m *Manager) notifyChanged() {
	m.changedMu.Lock()
	close(m.changed)
	m.changed = make(chan struct{})
	m.changedMu.Unlock()
}

// Close stops every server and waits for their processes; safe to call
// more than once.
func (m *Manager) Close() error {
	m.cancel()
	var wg sync.WaitGroup
	for _, s := range m.servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.close()
		}()
	}
	wg.Wait()
	m.wg.Wait()
	return nil
}
