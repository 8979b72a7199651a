package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/grovecli/grove/core/tools"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/templates"
)

// spawnRequest is a validated spawn_agent call.
type spawnRequest struct {
	caller    *Thread
	callID    string
	items     []protocol.Item
	agentType string
	agentName string
	workdir   string
	model     string
	effort    string
	note      *string
	// child is set by SpawnChild (a surface's own spawn): it fixes the
	// surface, the instructions and the run limits itself.
	child    *ChildSpec
	ownTools *tools.Registry
	// history is a forked copy of the caller's conversation (spawn_fork.go).
	history []protocol.Item
}

// spawn creates a child of r.caller and starts it on r.items. Every
// validation happens before anything is created.
func (e *Engine) spawn(ctx context.Context, r spawnRequest) (*Thread, error) {
	caller := r.caller
	if caller.depth+1 > e.opts.MaxDepth {
		return nil, fmt.Errorf("max_depth reached: an agent at depth %d cannot spawn children (agents.max_depth = %d); do this part yourself or return it to your parent", caller.depth, e.opts.MaxDepth)
	}
	role, err := e.spawnRole(caller, r)
	if err != nil {
		return nil, err
	}
	set, err := e.spawnSettings(ctx, &r, role)
	if err != nil {
		return nil, err
	}
	if set.cwd, err = e.spawnCwd(ctx, caller, r.workdir, set.cwd, role.agentType, r.agentName); err != nil {
		return nil, err
	}
	// Slot reservation, atomic with respect to other spawns; a tool
	// call's is settled in its reply's call order (spawn_slots.go).
	held, err := e.takeSlot(ctx, r)
	if err != nil {
		return nil, err
	}
	spec, err := e.spawnSpec(ctx, r, role, set)
	if err != nil {
		held.release()
		return nil, err
	}
	child, err := e.newThread(spec)
	if err != nil {
		// Not registered: the slot was never handed over.
		held.release()
		return nil, err
	}
	held.handedOver()
	e.startSpawned(caller, child, r, role)
	return child, nil
}

// spawnedRole is the role template a spawn asked for, resolved.
type spawnedRole struct {
	tpl         *templates.Template // nil: no template (or a surface's own spawn)
	persona     *templates.Persona
	agentType   string // "" for the default agent
	rolePrompt  string
	description string
}

// spawnRole looks up and validates the role template of a spawn_agent
// call (a surface's own spawn brings its instructions itself).
func (e *Engine) spawnRole(caller *Thread, r spawnRequest) (spawnedRole, error) {
	role := spawnedRole{agentType: r.agentType}
	if role.agentType == "default" {
		role.agentType = ""
	}
	if role.agentType == "" && r.agentName != "" {
		return role, errors.New(templates.ErrNameRequiresType)
	}
	if role.agentType == "" || r.child != nil {
		return role, nil
	}
	norm, err := templates.ValidateAgentType(role.agentType)
	if err != nil {
		return role, err
	}
	role.agentType = norm
	if role.tpl, err = e.opts.Templates.Lookup(norm); err != nil {
		return role, err
	}
	e.warnTemplate(caller, role.tpl)
	if role.rolePrompt, role.persona, err = role.tpl.Select(r.agentName); err != nil {
		return role, err
	}
	role.description = role.tpl.Description
	return role, nil
}

// spawnedSettings is the child's model, effort, sandbox and directory.
type spawnedSettings struct {
	model, effort string
	sandbox       protocol.SandboxPolicy
	cwd           string
}

// spawnSettings resolves the child's model and effort (spawn override >
// persona > template > inherited) and its sandbox (a read-only template
// narrows the caller's); r.model becomes the alias's target.
func (e *Engine) spawnSettings(ctx context.Context, r *spawnRequest, role spawnedRole) (spawnedSettings, error) {
	caller := r.caller
	caller.mu.Lock()
	set := spawnedSettings{model: caller.modelName, effort: caller.effort, sandbox: caller.sandbox, cwd: caller.cwd}
	caller.mu.Unlock()
	if tpl := role.tpl; tpl != nil {
		set.model, set.effort = cmp.Or(tpl.Model, set.model), cmp.Or(tpl.ReasoningEffort, set.effort)
		if p := role.persona; p != nil {
			set.model, set.effort = cmp.Or(p.Model, set.model), cmp.Or(p.ReasoningEffort, set.effort)
		}
		if tpl.ReadOnly {
			set.sandbox = protocol.SandboxPolicy{Mode: protocol.SandboxReadOnly}
		}
	}
	if r.model != "" {
		m, err := e.modelAlias(r.model)
		if err != nil {
			return set, err
		}
		if m != "" {
			set.model = m
		}
		r.model = m
	}
	if r.effort != "" {
		set.effort = r.effort
	}
	// A surface's own spawn (SpawnChild) resolved the model by its seed's
	// rules (Task: §3.10, which takes any name and maps the aliases without
	// consulting a model list); only spawn_agent's are checked.
	if (r.model != "" || r.effort != "") && r.child == nil {
		if err := e.models.validate(ctx, set.model, r.effort, r.model != ""); err != nil {
			return set, err
		}
	}
	return set, nil
}

// spawnCwd resolves the child's working directory once: the caller's own
// directory when it is the same one, else the resolved path, approved and
// re-checked, never a name through a symlink that could be repointed later.
func (e *Engine) spawnCwd(ctx context.Context, caller *Thread, workdir, callerCwd, agentType, agentName string) (string, error) {
	if workdir == "" {
		return callerCwd, nil
	}
	wd, err := pinDir(callerCwd, workdir)
	if err != nil {
		return "", err
	}
	if sameDir(wd.path, callerCwd) {
		return callerCwd, nil
	}
	if err := e.approveWorkdir(ctx, caller, wd.path, agentType, agentName); err != nil {
		return "", err
	}
	if err := wd.recheck(); err != nil {
		return "", err
	}
	return wd.path, nil
}

// spawnSpec is the child's thread spec: its template's policy and host
// (approved), and its surface, or what a surface's own spawn fixed.
func (e *Engine) spawnSpec(ctx context.Context, r spawnRequest, role spawnedRole, set spawnedSettings) (threadSpec, error) {
	caller, tpl := r.caller, role.tpl
	var allow, deny []string
	if tpl != nil {
		allow, deny = tpl.Policy()
	}
	spec := threadSpec{
		parent: caller, source: protocol.SourceSpawned,
		agentType: role.agentType, agentName: r.agentName, description: role.description,
		spawnCallID: r.callID, model: set.model, effort: set.effort, cwd: set.cwd, sandbox: set.sandbox,
		allow: allow, deny: deny, rolePrompt: role.rolePrompt, reserved: true,
		host: caller.host,
	}
	if tpl != nil && tpl.Host != "" {
		// A host that is not configured is refused, never run locally.
		if _, _, err := e.hostBackend(tpl.Host); err != nil {
			return spec, fmt.Errorf("agent_type %s runs on host %q (its template says host: %s): %w", role.agentType, tpl.Host, tpl.Host, err)
		}
		if err := e.approveTemplateHost(ctx, caller, tpl); err != nil {
			return spec, err
		}
		spec.host = tpl.Host
	}
	if r.child != nil {
		applyChildSpec(&spec, r.child)
		spec.run.own = r.ownTools
		return spec, nil
	}
	spec.history = r.history
	q := SurfaceQuery{Model: set.model, Parent: caller.surface}
	if tpl != nil {
		q.Template = tpl.Surface
	}
	var err error
	spec.surface, err = e.selectSurface(q)
	return spec, err
}

// testHookBeforeSpawnNote, when set by a test, runs just before a spawned
// child's note is set (to make that write fail: seed 000's note clause).
var testHookBeforeSpawnNote func(*Thread)

// startSpawned names the registered child, lets its parent observe it and
// starts its loop on the spawn's input.
func (e *Engine) startSpawned(caller, child *Thread, r spawnRequest, role spawnedRole) {
	note := defaultNote(role.agentType, r.agentName, role.description)
	if r.note != nil {
		note = *r.note
	}
	if testHookBeforeSpawnNote != nil {
		testHookBeforeSpawnNote(child)
	}
	if _, err := e.setNote(child, note); err != nil {
		// The spawn stands; the parent's UI hears about the note.
		e.bus.Publish(protocol.NewEvent(caller.id, "", protocol.BackgroundMsg{Event: protocol.BackgroundEvent{
			ChildID: child.id, Status: protocol.PendingInit(), Warning: true,
			Message: fmt.Sprintf("could not set thread note of agent %s: %v", child.id, err),
		}}))
	}
	e.startObserver(caller, child, r.callID)
	if r.child != nil {
		// Before its loop starts: STARTED precedes the child's TURN_START.
		e.activity(child, protocol.ActivityStarted, map[string]any{"description": r.child.Description})
	}
	child.enqueue(r.items...)
	e.startLoop(child)
}

// reserveSlot enforces agents.max_threads over running or pending
// sub-agents; an idle finished child holds no slot.
func (e *Engine) reserveSlot() error { return e.tree.reserve(e.opts.MaxThreads) }

// approveWorkdir asks the root session's user (falling back to the caller's
// own session) to let a child start in another directory.
func (e *Engine) approveWorkdir(ctx context.Context, caller *Thread, dir, agentType, agentName string) error {
	route := caller
	root := e.tree.rootThread()
	if root != nil && !root.isClosed() {
		route = root
	}
	label := agentType
	if label == "" {
		label = "default"
	}
	if agentName != "" {
		label += "/" + agentName
	}
	caller.mu.Lock()
	from := caller.cwd
	caller.mu.Unlock()
	req := protocol.ApprovalRequest{
		Kind: protocol.ApprovalWorkingDir, Dir: dir, Cwd: from, RouteThreadID: route.id,
		Chain:  append(e.chain(caller), label+" (new)"),
		Reason: fmt.Sprintf("%s wants to start %s agent in %s instead of %s", caller.label(), withArticle(label), dir, from),
	}
	d, err := e.askApproval(ctx, caller, route, req)
	if err != nil {
		return &WorkdirRefusedError{Detail: "cancelled while waiting for approval of working_directory " + dir, Err: err}
	}
	switch d {
	case protocol.DecisionApproved, protocol.DecisionApprovedForSession:
		return nil
	case protocol.DecisionAbort:
		return &WorkdirRefusedError{Detail: "rejected: the user aborted the working_directory change to " + dir}
	}
	if e.ApprovalPolicy() == protocol.ApprovalNever && widensRoots(caller, dir) {
		return &WorkdirRefusedError{Detail: fmt.Sprintf("rejected: working_directory %s is outside this agent's writable roots, and under approval_policy = never no one can approve it; spawn inside %s (or without working_directory)", dir, from)}
	}
	if e.opts.Headless {
		return &WorkdirRefusedError{Detail: fmt.Sprintf("rejected: working_directory %s differs from %s and no one can approve it in this headless session (run grove exec with --approve-workdirs, or spawn without working_directory)", dir, from)}
	}
	return &WorkdirRefusedError{Detail: fmt.Sprintf("rejected: the user denied working_directory %s; spawn without working_directory to use %s", dir, from)}
}

// pinnedDir is a working directory resolved once: its path crosses no
// symlink, and its identity is kept to re-check it after the approval wait.
type pinnedDir struct {
	path string
	info os.FileInfo
}

// pinDir resolves p (relative to base) with every symlink followed.
func pinDir(base, p string) (pinnedDir, error) {
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	p = filepath.Clean(p)
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return pinnedDir{}, fmt.Errorf("working_directory %s: %w", p, err)
	}
	st, err := os.Stat(real)
	if err != nil {
		return pinnedDir{}, fmt.Errorf("working_directory %s: %w", p, err)
	}
	if !st.IsDir() {
		return pinnedDir{}, fmt.Errorf("working_directory %s is not a directory", p)
	}
	return pinnedDir{path: real, info: st}, nil
}

// recheck fails if the pinned path no longer names the same directory
// through no symlink (it was swapped while the user decided).
func (d pinnedDir) recheck() error {
	real, err := filepath.EvalSymlinks(d.path)
	if err == nil && real != d.path {
		err = fmt.Errorf("it now resolves to %s", real)
	}
	if err == nil {
		var st os.FileInfo
		if st, err = os.Stat(real); err == nil && !os.SameFile(st, d.info) {
			err = errors.New("it was replaced by another directory")
		}
	}
	if err != nil {
		return &WorkdirRefusedError{Detail: fmt.Sprintf("rejected: working_directory %s changed while waiting for approval", d.path), Err: err}
	}
	return nil
}

func sameDir(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	if errA != nil || errB != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return os.SameFile(sa, sb)
}

// warnTemplate shows a template's load warnings (an allow list that grants
// no tools, a dropped Claude tool) once per session, on the spawning
// thread, so the user learns why a role behaves as it does.
func (e *Engine) warnTemplate(caller *Thread, tpl *templates.Template) {
	for _, w := range tpl.Warnings {
		if e.warnings.first("template\x00" + w) {
			e.bus.Publish(protocol.NewEvent(caller.id, "", protocol.WarningMsg{Text: "agent template " + w}))
		}
	}
}

// modelAlias maps a spawn's model through agents.model_aliases: sonnet,
// opus and haiku to their ids, inherit to "" (the caller's model).
func (e *Engine) modelAlias(m string) (string, error) {
	switch l := strings.ToLower(strings.TrimSpace(m)); l {
	case "inherit":
		return "", nil
	case "sonnet", "opus", "haiku":
		if v := e.opts.ModelAliases[l]; v != "" {
			return v, nil
		}
		return "", fmt.Errorf("model alias %q has no mapping in [agents] model_aliases (set agents.model_aliases.%s, or give a model id)", l, l)
	}
	return m, nil
}
