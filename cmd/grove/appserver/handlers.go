package appserver

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/grovecli/grove/core/app"
	"github.com/grovecli/grove/core/config"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

// afterResponse is a result whose follow-up (the thread/started
// notification) must reach the client after the response.
type afterResponse struct {
	result any
	after  func()
}

func (s *Server) startResponse(sess *session, root *thread) protocol.AppThreadStartResponse {
	ti := root.info
	th := s.appThread(ti, sess.root, threadState(root.status, false), firstPrompt(sess.eng.History(ti.ID)))
	rootThread(sess, &th)
	return protocol.AppThreadStartResponse{
		Thread: th, Model: ti.Model, ModelProvider: th.ModelProvider, ReasoningEffort: strPtr(ti.ReasoningEffort),
		Cwd: ti.Cwd, ApprovalPolicy: codexApproval(ti.ApprovalPolicy), ApprovalsReviewer: "user",
		Sandbox: codexSandbox(ti.Sandbox), InstructionSources: s.instructionSources(sess, root),
		RuntimeWorkspaceRoots: runtimeRoots(sess.cfg, ti.Cwd),
	}
}

// runtimeRoots is a thread's runtimeWorkspaceRoots: thread/start's, else
// its cwd (Codex: thread_start.rs
// thread_start_excludes_profile_workspace_roots_from_runtime_workspace_roots).
func runtimeRoots(cfg ThreadConfig, cwd string) []string {
	if len(cfg.RuntimeWorkspaceRoots) > 0 {
		return cfg.RuntimeWorkspaceRoots
	}
	return []string{cwd}
}

// workspaceRoots checks thread/start's runtimeWorkspaceRoots: absolute
// paths only (Codex's are AbsolutePathBuf), cleaned, each once.
func workspaceRoots(in []string) ([]string, *protocol.RPCError) {
	var out []string
	for i, r := range in {
		if !filepath.IsAbs(r) {
			return nil, rpcError(protocol.RPCInvalidParams, "invalid params: runtimeWorkspaceRoots[%d]: %q is not an absolute path", i, r)
		}
		if c := filepath.Clean(r); !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out, nil
}

// rootThread sets what a session's root thread carries from the request
// that opened it: ephemeral (then no path: its files are temporary, as
// Codex's ephemeral threads have none) and threadSource.
func rootThread(sess *session, th *protocol.AppThread) {
	th.Ephemeral, th.ThreadSource = sess.cfg.Ephemeral, sess.threadSource
	if sess.cfg.Ephemeral {
		th.Path = nil
	}
}

// instructionSources lists the instruction files thread t's model sees:
// the user's global AGENTS.md (when it has text), then the project's.
// They are read once, when the thread is loaded: a loaded thread's model
// keeps the instructions it started with (Codex caches them too).
func (s *Server) instructionSources(sess *session, t *thread) []string {
	if t.instructionSources != nil {
		return t.instructionSources
	}
	out := []string{}
	var hc *config.Config
	if s.opts.Host != nil {
		hc, _ = s.opts.Host.view()
	}
	if hc != nil && strings.TrimSpace(hc.UserAgentsMD) != "" && hc.UserAgentsMDPath != "" {
		p := hc.UserAgentsMDPath
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		out = append(out, p)
	}
	t.instructionSources = append(out, sess.eng.ProjectDocPaths(t.info.ID)...)
	return t.instructionSources
}

func (s *Server) threadStart(p protocol.AppThreadStartParams) (any, *protocol.RPCError) {
	cfg, rerr := engineConfig(p.Cwd, p.Model, p.ApprovalPolicy, p.Sandbox)
	if rerr != nil {
		return nil, rerr
	}
	cfg.Ephemeral = p.Ephemeral != nil && *p.Ephemeral
	cfg.Originator = s.clientOriginator()
	if cfg.RuntimeWorkspaceRoots, rerr = workspaceRoots(p.RuntimeWorkspaceRoots); rerr != nil {
		return nil, rerr
	}
	sess, root, err := s.openSession(cfg, "")
	if err != nil {
		return nil, rpcError(protocol.RPCInternalError, "thread/start: %v", err)
	}
	s.mu.Lock()
	sess.threadSource = p.ThreadSource
	resp := s.startResponse(sess, root)
	s.mu.Unlock()
	return afterResponse{result: resp, after: func() { s.startPump(sess) }}, nil
}

func (s *Server) threadResume(p protocol.AppThreadResumeParams) (any, *protocol.RPCError) {
	if p.ThreadID == "" {
		return nil, missing("threadId")
	}
	if t := s.loaded(p.ThreadID); t != nil {
		if s.unmaterialized(t) {
			return nil, rpcError(protocol.RPCInvalidRequest, "no rollout found for thread id %s", p.ThreadID)
		}
		// Already loaded here: its live state is the answer.
		s.mu.Lock()
		defer s.mu.Unlock()
		resp := s.startResponse(t.sess, t)
		if !p.ExcludeTurns {
			resp.Thread.Turns = turnsFromHistory(t.info.ID, t.sess.eng.History(t.info.ID), t.info.Cwd)
		}
		return resp, nil
	}
	return s.openStoredThread(p, false)
}

// openStoredThread opens a stored root thread for thread/resume, or a copy of it for
// thread/fork, with the params' config, and answers like thread/start (with its turns unless
// excluded); a sub-agent's thread is refused, naming its root.
func (s *Server) openStoredThread(p protocol.AppThreadResumeParams, fork bool) (any, *protocol.RPCError) {
	method, hint := "thread/resume", "resume its root session"
	if fork {
		method, hint = "thread/fork", "fork its root thread"
	}
	cfg, rerr := engineConfig(p.Cwd, p.Model, p.ApprovalPolicy, p.Sandbox)
	if rerr != nil {
		return nil, rerr
	}
	cfg.Originator = s.clientOriginator()
	cfg.Ephemeral = fork && p.Ephemeral
	entry, rerr := s.findStored(p.ThreadID)
	if rerr != nil {
		return nil, rerr
	}
	if entry.ParentID != "" {
		return nil, rpcError(protocol.RPCInvalidParams, "invalid params: threadId: %s is a sub-agent of %s; %s", entry.ID, entry.ParentID, hint)
	}
	if entry.Archived {
		// Codex: thread_resume.rs thread_resume_rejects_archived_session_by_id.
		return nil, rpcError(protocol.RPCInvalidRequest, "%s: %v", method, &rollout.ArchivedError{ID: entry.ID})
	}
	sess, root, err := s.openSessionAs(cfg, string(entry.ID), fork)
	if err != nil {
		return nil, rpcError(protocol.RPCInternalError, "%s: %v", method, err)
	}
	s.mu.Lock()
	resp := s.startResponse(sess, root)
	if !p.ExcludeTurns {
		resp.Thread.Turns = turnsFromHistory(root.info.ID, sess.eng.History(root.info.ID), root.info.Cwd)
	}
	if fork {
		th := resp.Thread
		sess.forked = &th
	}
	s.mu.Unlock()
	return afterResponse{result: resp, after: func() { s.startPump(sess) }}, nil
}

func (s *Server) threadList(p protocol.AppThreadListParams) (any, *protocol.RPCError) {
	offset, limit := 0, 50
	if p.Cursor != nil && *p.Cursor != "" {
		n, err := strconv.Atoi(*p.Cursor)
		if err != nil || n < 0 {
			return nil, rpcError(protocol.RPCInvalidParams, "invalid params: cursor: %q is not a cursor this server returned", *p.Cursor)
		}
		offset = n
	}
	if p.Limit != nil {
		if *p.Limit <= 0 || *p.Limit > 1000 {
			return nil, rpcError(protocol.RPCInvalidParams, "invalid params: limit: must be 1..1000")
		}
		limit = *p.Limit
	}
	kinds, rerr := parseSourceKinds(p.SourceKinds)
	if rerr != nil {
		return nil, rerr
	}
	filter, rerr := s.listFilter(p)
	if rerr != nil {
		return nil, rerr
	}
	keep := func(e rollout.IndexEntry) bool { return kinds.keep(e) && filter(e) }
	list := rollout.ListSessionsWhere
	if kinds.subAgents {
		list = rollout.ListThreadsWhere
	}
	entries, more, err := list(s.opts.Home, offset, limit, keep)
	if err != nil {
		return nil, rpcError(protocol.RPCInternalError, "thread/list: %v", err)
	}
	resp := protocol.AppThreadListResponse{Data: []protocol.AppThread{}}
	for _, e := range entries {
		th := s.indexThread(e)
		if t := s.loaded(string(e.ID)); t != nil {
			s.mu.Lock()
			th.Status = threadState(t.status, t.approvals > 0)
			s.mu.Unlock()
		}
		resp.Data = append(resp.Data, th)
	}
	if more {
		next := strconv.Itoa(offset + len(entries))
		resp.NextCursor = &next
	}
	return resp, nil
}

func (s *Server) threadRead(p protocol.AppThreadReadParams) (any, *protocol.RPCError) {
	if p.ThreadID == "" {
		return nil, missing("threadId")
	}
	if t := s.loaded(p.ThreadID); t != nil {
		s.mu.Lock()
		info, root, state := t.info, t.sess.root, threadState(t.status, t.approvals > 0)
		s.mu.Unlock()
		hist := t.sess.eng.History(info.ID)
		for _, ti := range t.sess.eng.Threads() {
			if ti.ID == info.ID {
				info = ti // current note, name, model
			}
		}
		th := s.appThread(info, root, state, firstPrompt(hist))
		if info.ID == root {
			rootThread(t.sess, &th)
		}
		if p.IncludeTurns && s.unmaterialized(t) {
			return nil, rpcError(protocol.RPCInvalidRequest, "thread %s: includeTurns is unavailable before first user message", info.ID)
		}
		if p.IncludeTurns {
			th.Turns = turnsFromHistory(info.ID, hist, info.Cwd)
		}
		return protocol.AppThreadReadResponse{Thread: th}, nil
	}
	th, err := s.storedThread(p.ThreadID, p.IncludeTurns)
	if err != nil {
		return nil, rpcError(protocol.RPCInvalidParams, "invalid params: threadId: %v", err)
	}
	return protocol.AppThreadReadResponse{Thread: th}, nil
}

// inputItems converts turn/start input to engine input items.
func inputItems(in []protocol.AppUserInput) ([]protocol.InputItem, *protocol.RPCError) {
	var out []protocol.InputItem
	for i, u := range in {
		switch u.Type {
		case "text":
			out = append(out, protocol.InputItem{Type: "text", Text: u.Text})
		case "image":
			if u.URL == "" {
				return nil, rpcError(protocol.RPCInvalidParams, "invalid params: input[%d].url is required for an image", i)
			}
			out = append(out, protocol.InputItem{Type: "image", ImageURL: u.URL})
		case "localImage":
			if u.Path == "" {
				return nil, rpcError(protocol.RPCInvalidParams, "invalid params: input[%d].path is required for a localImage", i)
			}
			out = append(out, protocol.InputItem{Type: "local_image", Path: u.Path})
		default:
			return nil, rpcError(protocol.RPCInvalidParams, "invalid params: input[%d].type: %q is not supported (text, image, localImage)", i, u.Type)
		}
	}
	if len(out) == 0 {
		return nil, missing("input")
	}
	return out, nil
}

func (s *Server) turnStart(id json.RawMessage, p protocol.AppTurnStartParams) (any, *protocol.RPCError) {
	if p.ThreadID == "" {
		return nil, missing("threadId")
	}
	items, rerr := inputItems(p.Input)
	if rerr != nil {
		return nil, rerr
	}
	overrides, rerr := turnOverrides(p)
	if rerr != nil {
		return nil, rerr
	}
	t := s.loaded(p.ThreadID)
	if t == nil {
		return nil, notLoaded(p.ThreadID)
	}
	if rerr := s.submitTurn(t, id, p.Input, items, overrides, ""); rerr != nil {
		return nil, rerr
	}
	return deferred, nil
}

// submitTurn starts a turn on t with the client's input; request id is
// answered when the turn starts. review, when set, makes it a review turn
// (review/start): the answer names the review thread and the turn carries
// enteredReviewMode and exitedReviewMode items.
func (s *Server) submitTurn(t *thread, id json.RawMessage, input []protocol.AppUserInput, items []protocol.InputItem, overrides *protocol.TurnOverrides, review string) *protocol.RPCError {
	s.mu.Lock()
	t.sess.lastUsed = time.Now()
	if t.busy {
		s.mu.Unlock()
		return rpcError(protocol.RPCInvalidRequest, "a turn is already running on thread %s; turn/interrupt it or wait for turn/completed", t.info.ID)
	}
	// Registered before submitting: the pump may see turn_started at once.
	// The engine names the turn that takes this input by its client id.
	t.busy = true
	cid := fmt.Sprintf("turn-start-%d", itemSeq.Add(1))
	if t.startWaiting == nil {
		t.startWaiting = map[string]json.RawMessage{}
	}
	t.startWaiting[cid] = id
	if t.clientInput == nil {
		t.clientInput = map[string][]protocol.AppUserInput{}
	}
	t.clientInput[cid] = input
	if review != "" {
		if t.reviewWaiting == nil {
			t.reviewWaiting = map[string]string{}
		}
		t.reviewWaiting[cid] = review
	}
	s.mu.Unlock()
	if err := t.sess.core.Turn(app.Turn{Thread: t.info.ID, Items: items, ClientID: cid, Settings: overrides}); err != nil {
		s.mu.Lock()
		t.busy = false
		delete(t.startWaiting, cid)
		delete(t.clientInput, cid)
		delete(t.reviewWaiting, cid)
		s.mu.Unlock()
		return rpcError(protocol.RPCInvalidRequest, "turn/start: %v", err)
	}
	if overrides != nil {
		s.refreshInfo(t)
	}
	return nil
}

func (s *Server) turnInterrupt(p protocol.AppTurnInterruptParams) (any, *protocol.RPCError) {
	if p.ThreadID == "" {
		return nil, missing("threadId")
	}
	if p.TurnID == "" {
		return nil, missing("turnId")
	}
	t := s.loaded(p.ThreadID)
	if t == nil {
		return nil, notLoaded(p.ThreadID)
	}
	s.mu.Lock()
	cur := t.turnID
	if cur == p.TurnID {
		t.interruptAsked = cur
	}
	s.mu.Unlock()
	if cur != p.TurnID {
		return nil, rpcError(protocol.RPCInvalidRequest, "turn %s is not running on thread %s", p.TurnID, p.ThreadID)
	}
	if err := t.sess.eng.Submit(protocol.Op{Type: protocol.OpInterrupt, ThreadID: t.info.ID}); err != nil {
		return nil, rpcError(protocol.RPCInternalError, "turn/interrupt: %v", err)
	}
	return struct{}{}, nil
}

func (s *Server) noteSet(p protocol.AppThreadNoteSetParams) (any, *protocol.RPCError) {
	t, rerr := s.loadedThread(p.ThreadID)
	if rerr != nil {
		return nil, rerr
	}
	note := ""
	if p.Note != nil {
		note = *p.Note
	}
	if err := t.sess.eng.Submit(protocol.Op{Type: protocol.OpSetNote, ThreadID: t.info.ID, Note: note}); err != nil {
		return nil, rpcError(protocol.RPCInvalidParams, "invalid params: note: %v", err)
	}
	resp := protocol.AppThreadNoteSetResponse{ThreadID: p.ThreadID}
	for _, ti := range t.sess.eng.Threads() {
		if ti.ID == t.info.ID {
			resp.Note = strPtr(ti.Note)
		}
	}
	return resp, nil
}

// loadedThread is the thread a request names by threadId: missing and
// not-loaded ids are the client's error, named.
func (s *Server) loadedThread(id string) (*thread, *protocol.RPCError) {
	if id == "" {
		return nil, missing("threadId")
	}
	t := s.loaded(id)
	if t == nil {
		return nil, notLoaded(id)
	}
	return t, nil
}

func notLoaded(id string) *protocol.RPCError {
	return rpcError(protocol.RPCInvalidParams, "invalid params: threadId: thread %s is not loaded; thread/resume its session first", id)
}

// decision maps a client's approval answer to the engine's.
func decision(raw json.RawMessage) (protocol.ReviewDecision, error) {
	var name string
	if err := json.Unmarshal(raw, &name); err != nil {
		// Codex's object forms (execpolicy/network amendments) approve once.
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) == nil && len(obj) == 1 {
			for k := range obj {
				if strings.HasPrefix(k, "accept") || strings.HasPrefix(k, "apply") {
					return protocol.DecisionApproved, nil
				}
			}
		}
		return "", fmt.Errorf("unknown decision %s", raw)
	}
	switch name {
	case "accept", "approved":
		return protocol.DecisionApproved, nil
	case "acceptForSession", "approved_for_session":
		return protocol.DecisionApprovedForSession, nil
	case "decline", "denied":
		return protocol.DecisionDenied, nil
	case "cancel", "abort":
		return protocol.DecisionAbort, nil
	}
	return "", fmt.Errorf("unknown decision %q", name)
}

// answer handles the client's response to an approval request. A malformed
// or error answer declines: nothing runs that the user did not accept.
func (s *Server) answer(msg protocol.RPCMessage) {
	id, err := strconv.ParseInt(string(msg.ID), 10, 64)
	if err != nil {
		return
	}
	// The entry stays until the engine reports the approval resolved
	// (approvalResolved), which tells the client with
	// serverRequest/resolved; a second answer to it changes nothing.
	s.mu.Lock()
	pa := s.approvals[id]
	if pa != nil && pa.answered {
		pa = nil
	}
	if pa != nil {
		pa.answered = true
	}
	s.mu.Unlock()
	if pa == nil {
		return
	}
	if pa.userInput != nil {
		s.answerUserInput(pa, msg)
		return
	}
	d := protocol.DecisionDenied
	if msg.Error == nil && pa.approval.MCP != nil {
		if dd, err := mcpApprovalDecision(msg.Result); err == nil {
			d = dd
		} else {
			_ = s.out.notify("warning", map[string]any{"threadId": string(pa.approval.ThreadID), "message": fmt.Sprintf("approval answer not understood (%v): declined", err)})
		}
	} else if msg.Error == nil {
		var r protocol.AppApprovalResponse
		if err := json.Unmarshal(msg.Result, &r); err == nil {
			if dd, err := decision(r.Decision); err == nil {
				d = dd
			} else {
				_ = s.out.notify("warning", map[string]any{"threadId": string(pa.approval.ThreadID), "message": fmt.Sprintf("approval answer not understood (%v): declined", err)})
			}
		}
	}
	if err := pa.sess.eng.Submit(protocol.Op{Type: protocol.OpApproval, ApprovalID: pa.approval.ID, Decision: d}); err != nil {
		_ = s.out.notify("warning", map[string]any{"threadId": string(pa.approval.ThreadID), "message": fmt.Sprintf("approval answer: %v", err)})
	}
}

// refreshInfo re-reads a thread's settings from the engine (after
// turn/start changed its cwd, model or sandbox).
func (s *Server) refreshInfo(t *thread) {
	for _, ti := range t.sess.eng.Threads() {
		if ti.ID == t.info.ID {
			s.mu.Lock()
			t.info = ti
			s.mu.Unlock()
			return
		}
	}
}

// clientOriginator is the initialized client's name.
func (s *Server) clientOriginator() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.originator
}

// listFilter is thread/list's cwd and modelProviders filters (Codex:
// thread_list.rs thread_list_respects_cwd_filter and
// thread_list_filters_by_model_provider) and the archived flag.
func (s *Server) listFilter(p protocol.AppThreadListParams) (func(rollout.IndexEntry) bool, *protocol.RPCError) {
	cwds := map[string]bool{}
	if present(p.Cwd) {
		var one string
		var many []string
		switch {
		case json.Unmarshal(p.Cwd, &one) == nil:
			many = []string{one}
		case json.Unmarshal(p.Cwd, &many) == nil:
		default:
			return nil, rpcError(protocol.RPCInvalidParams, "invalid params: cwd: a directory or a list of directories")
		}
		for _, d := range many {
			cwds[filepath.Clean(d)] = true
		}
	}
	providers := map[string]bool{}
	for _, m := range p.ModelProviders {
		providers[m] = true
	}
	wantArchived := p.Archived != nil && *p.Archived
	fallback := "openai"
	if s.opts.Host != nil {
		if _, prov := s.opts.Host.view(); prov.Name != "" {
			fallback = prov.Name
		}
	}
	return func(e rollout.IndexEntry) bool {
		if len(cwds) > 0 && !cwds[filepath.Clean(e.Cwd)] {
			return false
		}
		if len(providers) > 0 {
			prov := e.Provider
			if prov == "" {
				prov = fallback
			}
			if !providers[prov] {
				return false
			}
		}
		return e.Archived == wantArchived
	}, nil
}
