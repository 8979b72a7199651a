package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/templates"
)

// Issue 31 item 10: a repository's template saying `host: prod` ran the
// model's commands in the user's [hosts.prod] workspace, with no --host
// and no question. A host named by project content (a project-scope
// template) needs the user's yes once per host per project, recorded in
// $GROVE_HOME/project_hosts.json (outside every sandbox's reach: grove's
// home is bound read-only when a writable root holds it); with nobody to
// ask (headless, a non-interactive agent) it is refused. Hosts named by
// the user's own templates, or the one the session runs on (--host), need
// no question.

// projectHostsFile records the approved hosts: {"<project dir>": ["prod"]}.
const projectHostsFile = "project_hosts.json"

var projectHostsMu sync.Mutex

// projectOf is the project a project-scope template came from: the
// directory holding its .grove, .codex or .claude directory.
func projectOf(source string) string {
	for _, marker := range []string{"/.grove/", "/.codex/", "/.claude/"} {
		if i := strings.LastIndex(source, marker); i > 0 {
			return source[:i]
		}
	}
	return filepath.Dir(source)
}

func (e *Engine) projectHostsPath() string { return filepath.Join(e.opts.Home, projectHostsFile) }

// projectHostApproved reports whether host was approved for project.
func (e *Engine) projectHostApproved(project, host string) bool {
	projectHostsMu.Lock()
	defer projectHostsMu.Unlock()
	m, _ := readProjectHosts(e.projectHostsPath())
	return slices.Contains(m[project], host)
}

// recordProjectHost adds host to project's approved hosts.
func (e *Engine) recordProjectHost(project, host string) error {
	projectHostsMu.Lock()
	defer projectHostsMu.Unlock()
	path := e.projectHostsPath()
	m, err := readProjectHosts(path)
	if err != nil {
		return err
	}
	if slices.Contains(m[project], host) {
		return nil
	}
	m[project] = append(m[project], host)
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("record host approval: %w", err)
	}
	return os.Rename(tmp, path)
}

func readProjectHosts(path string) (map[string][]string, error) {
	m := map[string][]string{}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// approveTemplateHost asks, when tpl is project content routing its
// agents to a host other than the caller's, whether that host may be
// used for this project; the answer is recorded.
func (e *Engine) approveTemplateHost(ctx context.Context, caller *Thread, tpl *templates.Template) error {
	if tpl.Scope != "project" || tpl.Host == caller.host || tpl.Host == e.opts.HostName {
		return nil
	}
	project := projectOf(tpl.Source)
	if e.projectHostApproved(project, tpl.Host) {
		return nil
	}
	route := caller
	root := e.tree.rootThread()
	if root != nil && !root.isClosed() {
		route = root
	}
	caller.mu.Lock()
	from := caller.cwd
	caller.mu.Unlock()
	req := protocol.ApprovalRequest{
		Kind: protocol.ApprovalWorkingDir, Host: tpl.Host, Dir: tpl.Host + ":", Cwd: from, RouteThreadID: route.id,
		Chain: append(e.chain(caller), tpl.AgentType+" (new)"),
		Reason: fmt.Sprintf("the project's template %s (agent_type %s) runs its agents' commands on host %q ([hosts.%s]); allow this host for %s? (asked once, recorded in %s)",
			tpl.Source, tpl.AgentType, tpl.Host, tpl.Host, project, e.projectHostsPath()),
	}
	d, err := e.askApproval(ctx, caller, route, req)
	if err != nil {
		return fmt.Errorf("host %q of the project's template %s: cancelled while waiting for approval: %w", tpl.Host, tpl.Source, err)
	}
	if !d.Approved() {
		return fmt.Errorf("host %q named by the project's template %s was not approved (%s): only the user may send this project's agents to a host; with nobody to ask (grove exec, a non-interactive agent) it is refused — run the session with --host %s, or use the template from your own agents directory",
			tpl.Host, tpl.Source, d, tpl.Host)
	}
	return e.recordProjectHost(project, tpl.Host)
}
