package appserver

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/grovecli/grove/core/mcp"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

func platformOS() string { return runtime.GOOS }

func platformFamily() string {
	if runtime.GOOS == "windows" {
		return "windows"
	}
	return "unix"
}

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// appThread converts a thread's info to Codex's Thread.
func (s *Server) appThread(ti protocol.ThreadInfo, rootID protocol.ThreadID, state protocol.AppThreadState, preview string) protocol.AppThread {
	th := protocol.AppThread{
		ID: string(ti.ID), SessionID: string(rootID), CliVersion: s.opts.Version,
		CreatedAt: ti.StartedAt.Unix(), UpdatedAt: time.Now().Unix(),
		Cwd: ti.Cwd, Model: strPtr(ti.Model), ModelProvider: ti.Provider,
		ReasoningEff: strPtr(ti.ReasoningEffort), Name: strPtr(ti.Name), Path: strPtr(ti.RolloutPath),
		Preview: preview, Source: "appServer", Status: state, Turns: []protocol.AppTurn{},
		AgentRole: strPtr(ti.AgentType), AgentNickname: strPtr(ti.Nickname), Note: strPtr(ti.Note),
	}
	if th.ModelProvider == "" && s.opts.Host != nil {
		// A session recorded before the index kept its provider.
		th.ModelProvider = s.opts.Host.Provider.Name
	}
	if th.ModelProvider == "" {
		th.ModelProvider = "openai"
	}
	if ti.ForkedFromID != "" {
		th.ForkedFromID = strPtr(string(ti.ForkedFromID))
	}
	if ti.ParentID != "" {
		th.ParentThreadID = strPtr(string(ti.ParentID))
		var src protocol.AppSubAgentSource
		src.SubAgent.ThreadSpawn = protocol.AppThreadSpawn{
			ParentThreadID: string(ti.ParentID), Depth: ti.Depth,
			AgentRole: strPtr(ti.AgentType), AgentNickname: strPtr(ti.Nickname),
		}
		th.Source = src
	}
	return th
}

// threadState maps an agent status to Codex's ThreadStatus.
func threadState(st protocol.AgentStatus, waitingOnApproval bool) protocol.AppThreadState {
	switch st.Kind {
	case protocol.StatusPendingInit, protocol.StatusRunning:
		flags := []string{}
		if waitingOnApproval {
			flags = append(flags, "waitingOnApproval")
		}
		return protocol.AppThreadState{Type: "active", ActiveFlags: flags}
	case protocol.StatusShutdown, protocol.StatusNotFound:
		return protocol.AppThreadState{Type: "notLoaded"}
	}
	return protocol.AppThreadState{Type: "idle"}
}

// codexApproval names a grove policy in Codex 0.169's vocabulary, which has
// no on-failure (deprecated there): it is reported as on-request.
func codexApproval(p protocol.ApprovalPolicy) string {
	if p == protocol.ApprovalOnFailure || p == "" {
		return string(protocol.ApprovalOnRequest)
	}
	return string(p)
}

func codexSandbox(p protocol.SandboxPolicy) protocol.AppSandboxPolicy {
	f := false
	switch p.Mode {
	case protocol.SandboxReadOnly:
		return protocol.AppSandboxPolicy{Type: "readOnly", NetworkAccess: &f}
	case protocol.SandboxDangerFullAccess:
		return protocol.AppSandboxPolicy{Type: "dangerFullAccess"}
	}
	na, envVar, slash := p.NetworkAccess, p.ExcludeTmpdirEnvVar, p.ExcludeSlashTmp
	roots := append([]string{}, p.WritableRoots...)
	return protocol.AppSandboxPolicy{Type: "workspaceWrite", NetworkAccess: &na, WritableRoots: roots, ExcludeTmpdirEnvVar: &envVar, ExcludeSlashTmp: &slash}
}

// firstPrompt is the first user message of a history, the thread preview.
func firstPrompt(items []protocol.Item) string {
	for _, it := range items {
		if it.Type == protocol.ItemMessage && (it.Role == protocol.RoleUser || it.Role == protocol.RoleAgent) && !it.IsTurnAbortedNotice() {
			return it.Content
		}
	}
	return ""
}

// turnsFromHistory rebuilds turns from a stored conversation: each user
// message opens a turn. Item and turn ids are derived from the thread id
// and position, stable across reads.
func turnsFromHistory(id protocol.ThreadID, items []protocol.Item, cwd string) []protocol.AppTurn {
	var turns []protocol.AppTurn
	outputs := map[string]string{}
	for _, it := range items {
		if it.Type == protocol.ItemFunctionCallOutput {
			outputs[it.CallID] = it.Output
		}
	}
	cur := func() *protocol.AppTurn {
		if len(turns) == 0 {
			turns = append(turns, protocol.AppTurn{ID: fmt.Sprintf("%s-turn-0", id), Items: []any{}, Status: "completed", ItemsView: "full"})
		}
		return &turns[len(turns)-1]
	}
	for i, it := range items {
		itemID := fmt.Sprintf("%s-item-%d", id, i)
		switch {
		case it.IsTurnAbortedNotice():
			// The notice an interrupt leaves for the model is no user turn
			// (Codex's thread history skips its turn_aborted marker too).
			continue
		case it.Type == protocol.ItemMessage && (it.Role == protocol.RoleUser || it.Role == protocol.RoleAgent):
			turns = append(turns, protocol.AppTurn{ID: fmt.Sprintf("%s-turn-%d", id, len(turns)+1), Items: []any{}, Status: "completed", ItemsView: "full"})
			cur().Items = append(cur().Items, userMessageItem(itemID, it.Content, it.Images))
		case it.Type == protocol.ItemMessage && it.Role == protocol.RoleAssistant:
			cur().Items = append(cur().Items, protocol.AppAgentMessageItem{Type: "agentMessage", ID: itemID, Text: it.Content})
		case it.Type == protocol.ItemFunctionCall:
			out, done := outputs[it.CallID]
			tc := protocol.ToolCall{CallID: it.CallID, Name: it.Name, Arguments: it.Arguments, Output: out}
			item := toolItem(tc, "", cwd)
			if done {
				item = finishToolItem(item, tc, false)
			}
			cur().Items = append(cur().Items, item)
		}
	}
	if turns == nil {
		turns = []protocol.AppTurn{}
	}
	return turns
}

func userMessageItem(id, text string, images []string) protocol.AppUserMessageItem {
	content := []protocol.AppUserInput{{Type: "text", Text: text, TextElements: []any{}}}
	for _, u := range images {
		content = append(content, protocol.AppUserInput{Type: "image", URL: u})
	}
	return protocol.AppUserMessageItem{Type: "userMessage", ID: id, Content: content}
}

// collabTools maps grove's collaboration tools to Codex's CollabAgentTool.
var collabTools = map[string]string{
	"spawn_agent": "spawnAgent", "send_input": "sendInput", "resume_agent": "resumeAgent",
	"wait": "wait", "close_agent": "closeAgent", "list_agents": "listAgents",
}

// toolItem is the item a tool call starts (status inProgress).
func toolItem(tc protocol.ToolCall, sender protocol.ThreadID, cwd string) any {
	var args map[string]any
	_ = json.Unmarshal([]byte(tc.Arguments), &args)
	str := func(k string) string { v, _ := args[k].(string); return v }
	kind := tc.ToolKind()
	switch {
	case kind == protocol.ToolKindExec:
		dir := cwd
		if w := str("workdir"); w != "" {
			dir = w
		}
		cmd := str("cmd")
		if cmd == "" {
			cmd = str("command") // Claude's Bash
		}
		return protocol.AppCommandExecutionItem{
			Type: "commandExecution", ID: tc.CallID, Command: cmd, Cwd: dir,
			CommandActions: []any{map[string]any{"type": "unknown", "command": cmd}}, Status: "inProgress",
		}
	case kind == protocol.ToolKindPatch:
		return protocol.AppFileChangeItem{Type: "fileChange", ID: tc.CallID, Changes: patchChanges(tc.Patch(), cwd), Status: "inProgress"}
	case kind == protocol.ToolKindCollab && collabTools[tc.Name] != "":
		var receivers []string
		for _, k := range []string{"id", "target"} {
			if v := str(k); v != "" {
				receivers = append(receivers, v)
			}
		}
		for _, k := range []string{"ids", "targets"} {
			if vs, ok := args[k].([]any); ok {
				for _, v := range vs {
					if s, ok := v.(string); ok {
						receivers = append(receivers, s)
					}
				}
			}
		}
		if receivers == nil {
			receivers = []string{}
		}
		return protocol.AppCollabToolCallItem{
			Type: "collabAgentToolCall", ID: tc.CallID, Tool: collabTools[tc.Name], Status: "inProgress",
			SenderThreadID: string(sender), ReceiverThreadIDs: receivers,
			AgentsStates: map[string]protocol.AppCollabState{}, Prompt: strPtr(str("message")),
		}
	}
	raw := json.RawMessage(tc.Arguments)
	if !json.Valid(raw) {
		b, _ := json.Marshal(tc.Arguments)
		raw = b
	}
	if server, tool, ok := mcp.SplitName(tc.Name); ok && kind == protocol.ToolKindMCP {
		return protocol.AppMcpToolCallItem{Type: "mcpToolCall", ID: tc.CallID, Server: server, Tool: tool, Arguments: raw, Status: "inProgress"}
	}
	return protocol.AppDynamicToolCallItem{Type: "dynamicToolCall", ID: tc.CallID, Tool: tc.Name, Arguments: raw, Status: "inProgress"}
}

// finishToolItem completes a tool item with its result.
// wasDeclined says the user refused the call's approval.
func finishToolItem(item any, tc protocol.ToolCall, wasDeclined bool) any {
	var dur *int64
	if tc.DurationMS > 0 {
		d := tc.DurationMS
		dur = &d
	}
	switch it := item.(type) {
	case protocol.AppCommandExecutionItem:
		it.Status = "completed"
		if tc.IsError || (tc.ExitCode != nil && *tc.ExitCode != 0) {
			it.Status = "failed"
		}
		if wasDeclined {
			// Codex: a declined command never ran; it has no output and no
			// exit code (turn_start.rs turn_start_exec_approval_decline_v2).
			it.Status = "declined"
			return it
		}
		out := tc.Output
		if tc.CommandOutput != nil {
			out = *tc.CommandOutput // the command's own output, as Codex's
		}
		it.AggregatedOutput, it.ExitCode, it.DurationMs = &out, tc.ExitCode, dur
		it.ProcessID = strPtr(tc.ProcessID)
		return it
	case protocol.AppFileChangeItem:
		it.Status = "completed"
		if tc.IsError {
			it.Status = "failed"
		}
		if wasDeclined {
			it.Status = "declined"
		}
		return it
	case protocol.AppCollabToolCallItem:
		it.Status = "completed"
		if tc.IsError {
			it.Status = "failed"
		}
		for _, id := range tc.AgentIDs {
			if !contains(it.ReceiverThreadIDs, string(id)) {
				it.ReceiverThreadIDs = append(it.ReceiverThreadIDs, string(id))
			}
		}
		return it
	case protocol.AppMcpToolCallItem:
		it.DurationMs = dur
		if tc.IsError {
			it.Status, it.Error = "failed", &protocol.AppMcpToolError{Message: tc.Output}
			return it
		}
		it.Status = "completed"
		it.Result = &protocol.AppMcpResult{Content: []any{map[string]any{"type": "text", "text": tc.Output}}}
		return it
	case protocol.AppDynamicToolCallItem:
		ok := !tc.IsError
		it.Status, it.Success, it.DurationMs = "completed", &ok, dur
		if tc.IsError {
			it.Status = "failed"
		}
		it.ContentItems = []protocol.AppContentItem{{Type: "inputText", Text: tc.Output}}
		return it
	}
	return item
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// patchChanges lists the files of an apply_patch input as Codex's
// FileUpdateChange: absolute paths (relative ones resolved against the
// thread's cwd), the change kind, and the diff (an added file's content,
// an update's hunks).
func patchChanges(input, cwd string) []protocol.AppFileChange {
	changes := []protocol.AppFileChange{}
	var cur *protocol.AppFileChange
	abs := func(p string) string {
		p = strings.TrimSpace(p)
		if cwd != "" && !filepath.IsAbs(p) {
			return filepath.Join(cwd, p)
		}
		return p
	}
	for _, line := range strings.Split(input, "\n") {
		line = strings.TrimRight(line, "\r")
		add := func(path, kind string) {
			changes = append(changes, protocol.AppFileChange{Path: abs(path), Kind: protocol.AppChangeKind{Type: kind}})
			cur = &changes[len(changes)-1]
		}
		switch {
		case strings.HasPrefix(line, "*** Add File: "):
			add(strings.TrimPrefix(line, "*** Add File: "), "add")
		case strings.HasPrefix(line, "*** Delete File: "):
			add(strings.TrimPrefix(line, "*** Delete File: "), "delete")
		case strings.HasPrefix(line, "*** Update File: "):
			add(strings.TrimPrefix(line, "*** Update File: "), "update")
		case strings.HasPrefix(line, "*** Move to: ") && cur != nil:
			mp := abs(strings.TrimPrefix(line, "*** Move to: "))
			cur.Kind.MovePath = &mp
		case strings.HasPrefix(line, "*** "):
			cur = nil
		case cur != nil && cur.Kind.Type == "add":
			// An added file's diff is its content (Codex: "new line\n").
			cur.Diff += strings.TrimPrefix(line, "+") + "\n"
		case cur != nil:
			cur.Diff += line + "\n"
		}
	}
	return changes
}

// createdAt reads the time of a UUIDv7 id (grove's thread ids).
func createdAt(id protocol.ThreadID, fallback time.Time) time.Time {
	u, err := uuid.Parse(string(id))
	if err != nil || u.Version() != 7 {
		return fallback
	}
	sec, nsec := u.Time().UnixTime()
	return time.Unix(sec, nsec)
}

// storedThread describes a thread that is not loaded, from the session
// index and (with turns) its rollout.
func (s *Server) storedThread(id string, withTurns bool) (protocol.AppThread, error) {
	entry, err := rollout.FindSession(s.opts.Home, id)
	if err != nil {
		return protocol.AppThread{}, err
	}
	th := s.indexThread(entry)
	if withTurns {
		sess, err := rollout.Read(entry.RolloutPath)
		if err != nil {
			return protocol.AppThread{}, fmt.Errorf("read thread %s: %w", id, err)
		}
		th.Turns = turnsFromHistory(entry.ID, sess.Items, entry.Cwd)
	}
	return th, nil
}

// indexThread converts a session-index entry (a thread not loaded here).
func (s *Server) indexThread(e rollout.IndexEntry) protocol.AppThread {
	ti := protocol.ThreadInfo{
		ID: e.ID, ParentID: e.ParentID, Cwd: e.Cwd, Model: e.Model, AgentType: e.AgentType, Nickname: e.AgentNickname,
		Note: e.Note, Name: e.ThreadName, RolloutPath: e.RolloutPath, Provider: e.Provider, ForkedFromID: e.ForkedFromID,
		StartedAt: createdAt(e.ID, e.UpdatedAt),
	}
	root := e.ID
	switch {
	case e.Root != "":
		root = e.Root
	case e.ParentID != "":
		root = e.ParentID
	}
	th := s.appThread(ti, root, protocol.AppThreadState{Type: "notLoaded"}, e.FirstPrompt)
	th.UpdatedAt = e.UpdatedAt.Unix()
	return th
}
