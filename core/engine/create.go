package engine

import (
	"fmt"
	"time"

	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

// threadSpec is everything needed to create a thread.
type threadSpec struct {
	id          protocol.ThreadID
	parent      *Thread
	source      protocol.ThreadSource
	agentType   string
	agentName   string
	description string
	spawnCallID string
	model       string
	effort      string
	cwd         string
	sandbox     protocol.SandboxPolicy
	allow, deny []string
	rolePrompt  string
	// exactInstructions: rolePrompt is the whole system prompt.
	exactInstructions bool
	note              string
	// name is the thread's user-facing title (Codex's thread name), kept
	// in the session index.
	name string
	// forkedFrom is the session a fork copies.
	forkedFrom protocol.ThreadID
	history    []protocol.Item
	// firstPrompt is the title a resumed session keeps (its index entry's):
	// a compacted history may no longer hold the first message.
	firstPrompt string
	createdAt   time.Time
	// rolloutPath reopens an existing rollout (resume) instead of creating one.
	rolloutPath string
	status      protocol.AgentStatus
	// usage is the thread's token total so far (a resumed thread's, from
	// its rollout): new calls add to it.
	usage protocol.TokenUsage
	// reserved: the spawn holds a max_threads slot, handed over to the
	// thread when it is registered (so it is never counted twice).
	reserved bool
	// closed registers a thread of a resumed session as closed (resumable).
	closed  bool
	surface string
	run     childRun
	// host is the [hosts.<name>] the thread's tools run on ("" = here).
	host string
	// nickname is the one a resumed sub-agent's rollout records ("" = give
	// one: nickname.go).
	nickname string
}

// newThread builds, registers and records a thread; the loop is started by
// startLoop. The thread starts in spec.status (pending_init by default).
func (e *Engine) newThread(spec threadSpec) (*Thread, error) {
	if spec.id == "" {
		spec.id = protocol.NewThreadID()
	}
	if spec.createdAt.IsZero() {
		spec.createdAt = e.now()
	}
	if spec.status.Kind == "" {
		spec.status = protocol.PendingInit()
	}
	id := threadIdentity{
		id: spec.id, source: spec.source,
		agentType: spec.agentType, agentName: spec.agentName, description: spec.description,
		spawnCallID: spec.spawnCallID, createdAt: spec.createdAt,
		allow: spec.allow, deny: spec.deny, surface: spec.surface, host: spec.host,
		forkedFrom: spec.forkedFrom,
		hostWS:     e.hostWorkspace(spec.host),
	}
	if spec.parent != nil {
		id.parentID = spec.parent.id
		id.depth = spec.parent.depth + 1
		id.nickname = e.nicknames.take(spec.nickname, spec.agentName, spec.id)
	}
	t := &Thread{
		e: e, threadIdentity: id, run: spec.run,
		modelName: spec.model, effort: spec.effort, cwd: spec.cwd, sandbox: spec.sandbox,
		note:   spec.note,
		name:   spec.name,
		budget: contextBudget{history: spec.history},
		turn:   turnState{usage: spec.usage},
		status: newThreadStatus(spec.status, e.now()),
		life:   newThreadLife(),
	}
	t.firstPrompt = spec.firstPrompt
	if t.firstPrompt == "" {
		t.firstPrompt = rollout.FirstPrompt(spec.history)
	}
	t.instructions = e.instructionsFor(t, spec.rolePrompt)
	if spec.exactInstructions {
		// Seed 004 §3.4.2: the system prompt and the task, nothing else
		// (no AGENTS.md message before the task either).
		t.instructions = spec.rolePrompt
	} else {
		t.agentsCtx = e.agentsContext(t)
	}
	t.specs = t.toolSpecs()

	rec, err := e.threadRollout(t, spec)
	if err != nil {
		return nil, fmt.Errorf("rollout for thread %s: %w", t.id, err)
	}
	t.life.rec = rec
	t.life.rolloutPath = spec.rolloutPath
	if rec != nil {
		t.life.rolloutPath = rec.Path()
	}
	t.life.closed = spec.closed
	if err := e.register(t, spec); err != nil {
		return nil, err
	}

	info := t.info()
	ev := e.bus.Publish(protocol.NewEvent(t.id, "", protocol.ThreadStartedMsg{Thread: info}))
	if spec.closed {
		return t, nil
	}
	t.record(ev)
	st, _ := t.Status()
	t.publish(protocol.NewEvent(t.id, "", protocol.StatusChangedMsg{Status: st}))
	t.flush()
	e.updateIndex(t)
	if spec.parent != nil {
		e.updateIndex(e.rootOf(spec.parent))
	}
	return t, nil
}

// threadRollout opens the thread's rollout: none for a closed child of a resumed session
// (nothing is written until resume_agent reopens it), the file it had when resumed, or a
// new one with the thread's metadata.
func (e *Engine) threadRollout(t *Thread, spec threadSpec) (*rollout.Recorder, error) {
	switch {
	case spec.closed:
		return nil, nil
	case spec.rolloutPath != "":
		return rollout.OpenAppend(spec.rolloutPath)
	default:
		meta := rollout.SessionMeta{
			ID: t.id, ParentID: t.parentID, ForkedFromID: t.forkedFrom, Depth: t.depth, Source: t.source,
			AgentType: t.agentType, AgentName: t.agentName, AgentNickname: t.nickname, Model: t.modelName,
			Provider: e.opts.Provider, ReasoningEffort: t.effort, Cwd: t.cwd,
			Sandbox: t.sandbox, ApprovalPolicy: e.ApprovalPolicy(),
			SpawnCallID: t.spawnCallID, Note: t.note, Instructions: spec.rolePrompt, ExactInstructions: spec.exactInstructions,
			AllowList: t.allow, DenyList: t.deny, Timestamp: t.createdAt,
			Host: t.host,
		}
		if t.parentID == "" && t.host == "" {
			meta.Git = collectGitInfo(t.cwd)
		}
		if len(e.surfaces.names) > 0 {
			surface := t.surface
			meta.Surface = &surface
		}
		if t.run.allow != nil {
			// A surface's filter is code; the file keeps its effect, so a
			// reopened agent gets the same tools (minus its own).
			meta.AllowList, meta.DenyList = t.effectiveTools(), nil
			if len(meta.AllowList) == 0 {
				meta.DenyList = []string{"*"}
			}
		}
		if spec.parent == nil {
			// A root's file waits for its first message (Codex writes no
			// rollout for a thread that never got one); a sub-agent has
			// its task from the start.
			return rollout.CreatePending(e.opts.Home, meta)
		}
		return rollout.Create(e.opts.Home, meta)
	}
}

// register adds the thread to the engine and to its parent's children; a duplicate id is
// refused and its rollout closed.
func (e *Engine) register(t *Thread, spec threadSpec) error {
	if err := e.tree.add(t, spec.reserved); err != nil {
		if t.life.rec != nil {
			_ = t.life.rec.Close()
		}
		return err
	}
	if spec.parent != nil {
		spec.parent.mu.Lock()
		spec.parent.children = append(spec.parent.children, t.id)
		spec.parent.mu.Unlock()
	}
	return nil
}

func (e *Engine) rootOf(t *Thread) *Thread {
	for t.parentID != "" {
		p := e.thread(t.parentID)
		if p == nil {
			break
		}
		t = p
	}
	return t
}

// startLoop runs the thread's turn loop until it is closed.
func (e *Engine) startLoop(t *Thread) {
	t.mu.Lock()
	t.life.start(e.ctx)
	t.mu.Unlock()
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		t.loop()
	}()
}

// StartRoot creates the root thread of a new session.
func (e *Engine) StartRoot() (protocol.ThreadID, error) {
	surface, err := e.selectSurface(SurfaceQuery{Model: e.opts.Model})
	if err != nil {
		return "", err
	}
	t, err := e.newThread(threadSpec{surface: surface,
		source: protocol.SourceRoot, model: e.opts.Model, effort: e.opts.ReasoningEffort,
		cwd: e.opts.Cwd, sandbox: e.opts.Sandbox, host: e.opts.HostName,
		// An idle root with no turn yet is waiting for input.
		status: protocol.Completed("", false),
	})
	if err != nil {
		return "", err
	}
	e.startLoop(t)
	return t.id, nil
}

// SubmitText is a convenience for a user turn on a thread.
func (e *Engine) SubmitText(id protocol.ThreadID, text string) error {
	return e.Submit(protocol.Op{Type: protocol.OpUserTurn, ThreadID: id, Text: text})
}
