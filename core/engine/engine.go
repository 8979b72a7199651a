package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/grovecli/grove/core/execenv"
	"github.com/grovecli/grove/core/hooks"
	"github.com/grovecli/grove/core/logging"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/skills"
	"github.com/grovecli/grove/core/tools"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
	"github.com/grovecli/grove/templates"
)

// Options configures an Engine.
type Options struct {
	// Home is $GROVE_HOME: rollouts and the session index live there.
	Home string
	// Client talks to the model provider; Provider names it for display.
	Client   model.Client
	Provider string
	// Model and ReasoningEffort are the root's (inherited by children).
	Model           string
	ReasoningEffort string
	Cwd             string
	Sandbox         protocol.SandboxPolicy
	ApprovalPolicy  protocol.ApprovalPolicy
	MaxThreads      int // running or pending sub-agents; default 12
	MaxDepth        int // default 3
	// Instructions are extra user instructions appended to the base prompt.
	Instructions string
	// UserAgentsMD is the user's global AGENTS.md ($CODEX_HOME's): it opens
	// the user-role AGENTS.md block every thread sees, before the project's.
	UserAgentsMD string
	// BaseInstructions replace grove's base prompt (Codex's
	// model_instructions_file); the delegation section, role, AGENTS.md
	// and environment are still added.
	BaseInstructions string
	// DeveloperInstructions (Codex's developer_instructions) are added to
	// every agent's instructions as their own section.
	DeveloperInstructions string
	// OutputSchema constrains the root agent's replies (`grove exec
	// --output-schema`); sub-agents answer their parent in free text.
	OutputSchema json.RawMessage
	// TurnMetadata is sent with the root's model requests as Codex's
	// x-codex-turn-metadata header (a JSON object with the turn id added).
	TurnMetadata map[string]string
	Templates    *templates.Catalog
	// Tools holds the core tools; nil registers the built-in set.
	Tools *tools.Registry
	// Headless: nobody answers approvals; the policy decides.
	Headless bool
	// ApproveWorkdirs approves spawn working-directory changes headlessly.
	ApproveWorkdirs bool
	// Demo marks the offline demo model (for display).
	Demo bool
	Now  func() time.Time
	// ModelAliases maps sonnet/opus/haiku in a spawn's model to ids
	// (agents.model_aliases).
	ModelAliases map[string]string
	// Surfaces are the delegation tool surfaces (core/surface/*); none
	// means every thread sees every registered tool.
	Surfaces []SurfaceFactory
	// SelectSurface names a new thread's surface; nil picks the first.
	SelectSurface func(SurfaceQuery) string
	// Hooks runs the user's and project's hooks (core/hooks); nil: none.
	Hooks *hooks.Runner
	// Skills are the skills found for the session (core/skills), listed
	// in every agent's instructions within SkillsBudget characters (0: 2%
	// of DefaultContextWindow).
	Skills       skills.Catalog
	SkillsBudget int
	// Exec is where the threads' tools run (nil: this machine); with a
	// host, Workspace is the directory there that stands for Cwd.
	Exec      execenv.Backend
	Workspace string
	// HostName names the host of Exec in the rollouts ("" = this machine).
	HostName string
	// OpenHost returns the backend and workspace of a configured host
	// that a template names (`host:`), or an error naming the problem;
	// nil: templates cannot name hosts.
	OpenHost func(name string) (execenv.Backend, string, error)
	// ContextWindow (model_context_window) overrides every model's context
	// window in tokens; 0 = the provider's /models metadata, else grove's
	// table of known models.
	ContextWindow int64
	// AutoCompactTokenLimit (model_auto_compact_token_limit): a thread
	// whose history reaches this many tokens is compacted before its next
	// model request; 0 = 90% of the context window.
	AutoCompactTokenLimit int64
	// Compaction, when set, hears every compaction (hooks).
	Compaction CompactObserver
	// PrewarmTools prepares slow-to-start tools (exec_command's sandbox
	// helper) when a root thread's first turn starts, behind its first
	// model request. Off, the first call pays for it (tests that never
	// run a command keep no idle helper process).
	PrewarmTools bool
	// ToolConfig is the user's say in the tools each model is offered
	// (tool_family, web_search): see tools.ToolSetFor.
	ToolConfig tools.ToolConfig
	// NoInterruptMessage (agents.interrupt_message = false) leaves an
	// interrupted turn without the notice telling the model so.
	NoInterruptMessage bool
}

// Engine owns every thread of one session.
type Engine struct {
	opts  Options
	bus   *Bus
	tools *tools.Registry
	now   func() time.Time
	// sessions are the commands still running after their call (see
	// tools.SessionManager): an agent's die with it, all with Shutdown.
	sessions *tools.SessionManager

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup // thread loops and observers

	// tree is every thread of the session (tree.go).
	tree threadTree

	approvals approvalBroker
	// userInputs are request_user_input calls waiting for the user.
	userInputs userInputBroker
	models     modelCatalog
	windows    contextWindows
	surfaces   surfaceSet
	inboxes    inboxSet
	nicknames  nicknameBook

	warnings warnings

	// policy is the approval policy a front end set ("" = Options').
	policyMu sync.Mutex
	policy   protocol.ApprovalPolicy

	// indexMu makes an index entry's snapshot and its append one step:
	// two updates racing could otherwise append the older snapshot last,
	// and the index (last entry wins) would keep a stale note or status.
	indexMu sync.Mutex

	// waitMin/waitMax clamp wait timeouts (tests shrink the floor).
	waitMin, waitMax, waitDefault time.Duration
	closeGrace                    time.Duration
}

// Wait timeout contract (seed 000).
const (
	WaitMinTimeout     = 10 * time.Second
	WaitMaxTimeout     = 30 * time.Minute
	WaitDefaultTimeout = 5 * time.Minute
)

// New builds an engine; call StartRoot or ResumeSession next.
func New(ctx context.Context, opts Options) (*Engine, error) {
	if opts.Client == nil {
		return nil, errors.New("engine: no model client")
	}
	if opts.Home == "" {
		return nil, errors.New("engine: no home directory")
	}
	if opts.Cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("engine: working directory: %w", err)
		}
		opts.Cwd = wd
	}
	cwd, err := filepath.Abs(opts.Cwd)
	if err != nil {
		return nil, fmt.Errorf("engine: working directory %s: %w", opts.Cwd, err)
	}
	opts.Cwd = cwd
	if opts.MaxThreads <= 0 {
		opts.MaxThreads = 12
	}
	if opts.MaxDepth <= 0 {
		opts.MaxDepth = 3
	}
	if opts.ApprovalPolicy == "" {
		opts.ApprovalPolicy = protocol.ApprovalOnRequest
	}
	if opts.Sandbox.Mode == "" {
		opts.Sandbox.Mode = protocol.SandboxWorkspaceWrite
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Templates == nil {
		opts.Templates = templates.Load(templates.Dirs{Cwd: opts.Cwd, GroveHome: opts.Home}, templates.Options{})
	}
	reg := opts.Tools
	if reg == nil {
		reg = tools.NewRegistry()
		if err := tools.RegisterAll(reg); err != nil {
			return nil, fmt.Errorf("engine: register tools: %w", err)
		}
	}
	e := &Engine{
		opts: opts, tools: reg, now: opts.Now, sessions: tools.NewSessionManager(0),
		tree:    newThreadTree(),
		waitMin: WaitMinTimeout, waitMax: WaitMaxTimeout, waitDefault: WaitDefaultTimeout,
		closeGrace: 5 * time.Second,
	}
	e.opts.Compaction = e.withCompactHooks(opts.Compaction)
	e.bus = newBus(opts.Now)
	e.ctx, e.cancel = context.WithCancel(context.WithoutCancel(ctx))
	e.approvals.init()
	e.models.client = opts.Client
	if err := e.installSurfaces(); err != nil {
		return nil, err
	}
	return e, nil
}

// Subscribe returns the live event stream (see Bus).
func (e *Engine) Subscribe() (<-chan protocol.Event, func()) { return e.bus.Subscribe() }

// RootID is the root thread's id ("" before StartRoot/ResumeSession).
func (e *Engine) RootID() protocol.ThreadID {
	root := e.tree.rootThread()
	if root == nil {
		return ""
	}
	return root.id
}

// Options returns the options the engine runs with.
func (e *Engine) Options() Options { return e.opts }

// Threads snapshots every thread, root first then in creation order.
func (e *Engine) Threads() []protocol.ThreadInfo {
	ts := e.tree.all()
	out := make([]protocol.ThreadInfo, 0, len(ts))
	for _, t := range ts {
		out = append(out, t.info())
	}
	return out
}

// History returns a copy of a thread's conversation.
func (e *Engine) History(id protocol.ThreadID) []protocol.Item {
	t := e.thread(id)
	if t == nil {
		return nil
	}
	return t.budget.items()
}

// ThreadStats is what an overview shows about a thread beyond ThreadInfo.
type ThreadStats struct {
	Usage    protocol.TokenUsage
	LastTool string
}

// Stats returns token usage and the last tool of a thread.
func (e *Engine) Stats(id protocol.ThreadID) ThreadStats {
	t := e.thread(id)
	if t == nil {
		return ThreadStats{}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return ThreadStats{Usage: t.turn.usage, LastTool: t.turn.lastTool}
}

func (e *Engine) thread(id protocol.ThreadID) *Thread {
	return e.tree.get(id)
}

// Submit applies an op. It never blocks on a running turn.
func (e *Engine) Submit(op protocol.Op) error {
	switch op.Type {
	case protocol.OpShutdown:
		go e.Shutdown(context.Background())
		return nil
	case protocol.OpApproval:
		return e.approvals.resolve(e, op.ApprovalID, op.Decision)
	case protocol.OpUserInput:
		return e.answerUserInput(op.UserInputID, op.UserInput)
	}
	id := op.ThreadID
	if id == "" {
		id = e.RootID()
	}
	t := e.thread(id)
	if t == nil {
		return fmt.Errorf("no thread %s", id)
	}
	switch op.Type {
	case protocol.OpUserTurn:
		items, err := inputItems(t, op.Text, op.Items)
		if err != nil {
			return err
		}
		if t.isClosed() {
			if _, err := e.resumeThread(t.id); err != nil {
				return fmt.Errorf("thread %s is closed and could not be resumed: %w", t.id, err)
			}
		}
		if err := e.applyOverrides(t, op.Overrides); err != nil {
			return err
		}
		if !t.deliverAs(op.ClientID, false, items...) {
			return fmt.Errorf("thread %s is closing; try again once it has closed", t.id)
		}
		return nil
	case protocol.OpInterrupt:
		e.interruptTree(t)
		return nil
	case protocol.OpSetNote:
		_, err := e.setNote(t, op.Note)
		return err
	case protocol.OpClose:
		if t == e.tree.rootThread() {
			return errors.New("the root thread cannot be closed; quit or start a new session instead")
		}
		return e.closeSubtree(t, nil)
	case protocol.OpCompact:
		return t.requestCompaction(op.Text)
	case protocol.OpSetModel:
		t.mu.Lock()
		if op.Model != "" {
			t.modelName = op.Model
		}
		if op.ReasoningEffort != "" {
			t.effort = op.ReasoningEffort
		}
		t.mu.Unlock()
		e.bus.Publish(protocol.NewEvent(t.id, "", protocol.WarningMsg{Text: fmt.Sprintf("model set to %s %s", op.Model, op.ReasoningEffort)}))
		return nil
	case protocol.OpSetApprovalPolicy:
		return e.setApprovalPolicy(t, op.ApprovalPolicy)
	case protocol.OpRevertPatch:
		return e.revertPatch(t, op.Revert)
	}
	if _, ok := e.opHandler(op.Type); ok {
		_, err := e.SurfaceOp(op)
		return err
	}
	return fmt.Errorf("unknown op %q", op.Type)
}

// interruptTree interrupts a thread's turn and every descendant's, and
// sends Ctrl+C to their running sessions.
func (e *Engine) interruptTree(t *Thread) {
	for _, d := range e.subtree(t) {
		d.interrupt()
		e.sessions.InterruptOwner(d.id)
	}
}

// Sessions lists the running sessions of an agent ("" lists every
// agent's): /ps.
func (e *Engine) Sessions(owner protocol.ThreadID) []tools.SessionInfo {
	return e.sessions.List(owner)
}

// KillSession kills a running session of any agent (the user's /ps kill).
func (e *Engine) KillSession(id int) error { return e.sessions.Kill("", id) }

// subtree returns t and its descendants, parents before children.
func (e *Engine) subtree(t *Thread) []*Thread {
	out := []*Thread{t}
	for i := 0; i < len(out); i++ {
		out[i].mu.Lock()
		kids := append([]protocol.ThreadID(nil), out[i].children...)
		out[i].mu.Unlock()
		for _, k := range kids {
			if c := e.thread(k); c != nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// isDescendant reports whether d is t or below it.
func (e *Engine) isDescendant(d, t *Thread) bool {
	for cur := d; cur != nil; {
		if cur == t {
			return true
		}
		if cur.parentID == "" {
			return false
		}
		cur = e.thread(cur.parentID)
	}
	return false
}

// chain labels the path root → … → t.
func (e *Engine) chain(t *Thread) []string {
	var rev []string
	for cur := t; cur != nil; {
		rev = append(rev, cur.label())
		if cur.parentID == "" {
			break
		}
		cur = e.thread(cur.parentID)
	}
	out := make([]string, len(rev))
	for i, s := range rev {
		out[len(rev)-1-i] = s
	}
	return out
}

// Shutdown closes every thread (cascading), flushes rollouts and ends the
// event stream. Safe to call more than once.
func (e *Engine) Shutdown(ctx context.Context) error {
	root, roots := e.tree.rootThread(), e.tree.tops()
	log := logging.L()
	begin := time.Now()
	// Every tree at once, under one deadline: a stuck thread must not make
	// the others (and the caller's deadline) wait in line behind it.
	var all []*Thread
	for _, t := range roots {
		all = append(all, e.subtree(t)...)
	}
	e.closeThreads(ctx, all, nil)
	e.sessions.Shutdown()
	log.Info("engine shutdown: threads closed", "trees", len(roots), "duration_ms", time.Since(begin).Milliseconds())
	e.cancel()
	done := make(chan struct{})
	go func() { e.wg.Wait(); close(done) }()
	step := time.Now()
	select {
	case <-done:
	case <-ctx.Done():
		log.Warn("engine shutdown: gave up waiting for goroutines", "waited_ms", time.Since(step).Milliseconds(), "err", ctx.Err())
		return ctx.Err()
	}
	log.Info("engine shutdown: goroutines stopped", "duration_ms", time.Since(step).Milliseconds())
	if root != nil {
		e.bus.Publish(protocol.NewEvent(root.id, "", protocol.ShutdownCompleteMsg{}))
	}
	step = time.Now()
	e.bus.Close()
	log.Info("engine shutdown: event bus closed", "duration_ms", time.Since(step).Milliseconds(), "total_ms", time.Since(begin).Milliseconds())
	return nil
}

// warnOnce publishes a warning once per thread and topic (e.g. a rollout
// write failure) so a broken disk does not flood the UI.
func (e *Engine) warnOnce(id protocol.ThreadID, topic string, err error) {
	// The debug log gets every occurrence; the UI only the first.
	logging.L().Warn("engine: "+topic+" error", "thread", string(id), "err", err)
	key := string(id) + "/" + topic
	first := e.warnings.first(key)
	// Only a failed write loses lines; an event published after a thread
	// closed (its recorder gone) is not part of the record anyway.
	e.warnings.noteFailure(id, err)
	if first {
		e.bus.Publish(protocol.NewEvent(id, "", protocol.WarningMsg{Text: fmt.Sprintf("%s: %v", topic, err)}))
	}
}

// updateIndex writes the thread's current summary to the session index.
func (e *Engine) updateIndex(t *Thread) {
	e.indexMu.Lock()
	defer e.indexMu.Unlock()
	st, _ := t.Status()
	t.mu.Lock()
	entry := rollout.IndexEntry{
		ID: t.id, ParentID: t.parentID, ForkedFromID: t.forkedFrom, ThreadName: t.name, Note: t.note, Cwd: t.cwd,
		UpdatedAt: e.now(), FirstPrompt: t.firstPrompt, Model: t.modelName, Provider: e.opts.Provider,
		AgentType: t.agentType, AgentNickname: t.nickname, Status: string(st.Kind),
	}
	entry.RolloutPath = t.life.rolloutPath
	pending := t.life.rec != nil && !t.life.rec.Materialized()
	t.mu.Unlock()
	if entry.RolloutPath == "" || pending {
		// Nothing on disk yet: a listed session must be readable.
		return
	}
	entry.ChildCount = len(e.subtree(t)) - 1
	if err := rollout.AppendIndex(e.opts.Home, entry); err != nil {
		e.warnOnce(t.id, "session index", err)
	}
}

// inputItems turns a message or structured items into user message items;
// local images are read as from's model would name them (relative to its
// cwd, under its read policy).
func inputItems(from *Thread, text string, items []protocol.InputItem) ([]protocol.Item, error) {
	if text != "" && len(items) > 0 {
		return nil, errors.New("provide either message or items, not both")
	}
	if len(items) == 0 {
		if text == "" {
			return nil, errors.New("empty input: provide message or items")
		}
		return []protocol.Item{protocol.UserMessage(text)}, nil
	}
	msg := protocol.Item{Type: protocol.ItemMessage, Role: protocol.RoleUser}
	for i, it := range items {
		switch it.Type {
		case "text", "input_text":
			if msg.Content != "" {
				msg.Content += "\n"
			}
			msg.Content += it.Text
		case "image", "input_image":
			if it.ImageURL == "" {
				return nil, fmt.Errorf("items[%d]: image needs image_url", i)
			}
			msg.Images = append(msg.Images, it.ImageURL)
		case "local_image":
			url, err := from.localImageURL(it.Path)
			if err != nil {
				return nil, fmt.Errorf("items[%d]: %w", i, err)
			}
			msg.Images = append(msg.Images, url)
		default:
			return nil, fmt.Errorf("items[%d]: unknown item type %q (expected text, image or local_image)", i, it.Type)
		}
	}
	if msg.Content == "" && len(msg.Images) == 0 {
		return nil, errors.New("items: no text or image content")
	}
	return []protocol.Item{msg}, nil
}
