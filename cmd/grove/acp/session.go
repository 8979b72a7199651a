package acp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/grovecli/grove/core/app"
	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/core/logging"
	"github.com/grovecli/grove/protocol"
)

// maxProgressLines bounds the live progress a sub-agent's tool call shows.
const maxProgressLines = 20

// session is one ACP session: a grove root thread and its sub-agents.
type session struct {
	a *agent
	// core is the session of the core (core/app) that owns the engine
	// and what runs with it; Close releases it (nil in unit tests that
	// drive a bare engine).
	core       *app.Session
	eng        engine.FrontEnd
	id         sdk.SessionId
	root       protocol.ThreadID
	events     <-chan protocol.Event
	stopEvents func()

	mu sync.Mutex
	// turnEnd receives the root's status when the running prompt's turn
	// ends (nil when no prompt runs); turnOver marks turn_completed seen.
	turnEnd  chan protocol.AgentStatus
	turnOver bool
	// cancelling: the client cancelled the running prompt. A cancel that
	// lands before the engine starts the prompt's turn ends it with no turn
	// at all (the thread just becomes interrupted), so then the final status
	// alone ends the prompt.
	cancelling bool
	// streamed marks threads whose current message went out as deltas.
	streamed map[protocol.ThreadID]bool
	// liveOutput is the end of each running root command's output so far,
	// sent as its tool call's content while it runs.
	liveOutput map[string]string

	// Sub-agents: each thread maps to the root's spawn_agent tool call that
	// stands for its subtree (its anchor), which shows their progress.
	anchors   map[protocol.ThreadID]string
	labels    map[protocol.ThreadID]string
	tasks     map[string]string                // spawn call id → task message
	progress  map[string][]string              // anchor → progress lines
	owners    map[string]protocol.ThreadID     // anchor → the child it spawned
	finished  map[string]*protocol.AgentStatus // anchor → the child's final status
	spawnDone map[string]bool                  // anchor → the spawn_agent call itself ended
	// asking withdraws each permission request still put to the client
	// (approval id → cancel of its request's context).
	asking map[string]context.CancelFunc
}

func newSession(a *agent, eng engine.FrontEnd, root protocol.ThreadID, events <-chan protocol.Event, stop func()) *session {
	return &session{
		a: a, eng: eng, id: sdk.SessionId(root), root: root, events: events, stopEvents: stop,
		streamed: map[protocol.ThreadID]bool{}, liveOutput: map[string]string{}, anchors: map[protocol.ThreadID]string{},
		labels: map[protocol.ThreadID]string{}, tasks: map[string]string{},
		progress: map[string][]string{}, owners: map[string]protocol.ThreadID{},
		finished: map[string]*protocol.AgentStatus{}, spawnDone: map[string]bool{},
		asking: map[string]context.CancelFunc{},
	}
}

// update sends one session/update.
func (s *session) update(u sdk.SessionUpdate) {
	if err := s.a.connection().SessionUpdate(s.a.ctx, sdk.SessionNotification{SessionId: s.id, Update: u}); err != nil {
		logging.L().Debug("acp: session update not delivered", "session", string(s.id), "err", err)
	}
}

// prompt runs one turn and waits for its end; ctx ends on session/cancel.
func (s *session) prompt(ctx context.Context, items []protocol.InputItem) (sdk.PromptResponse, error) {
	end := make(chan protocol.AgentStatus, 1)
	s.mu.Lock()
	if s.turnEnd != nil {
		s.mu.Unlock()
		return sdk.PromptResponse{}, sdk.NewInvalidRequest(map[string]any{"sessionId": "a prompt is already running in this session; session/cancel it first"})
	}
	s.turnEnd, s.turnOver = end, false
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.turnEnd, s.cancelling = nil, false
		s.mu.Unlock()
	}()
	if err := s.core.Turn(app.Turn{Items: items}); err != nil {
		return sdk.PromptResponse{}, sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	cancelled := false
	var st protocol.AgentStatus
	select {
	case st = <-end:
	case <-ctx.Done():
		cancelled = true
		s.mu.Lock()
		s.cancelling = true
		s.mu.Unlock()
		_ = s.cancel()
		select {
		case st = <-end:
		case <-s.a.ctx.Done():
		}
	case <-s.a.ctx.Done():
		return sdk.PromptResponse{}, errors.New("connection closed")
	}
	switch {
	case cancelled || st.Kind == protocol.StatusInterrupted:
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	case st.Kind == protocol.StatusErrored:
		return sdk.PromptResponse{}, sdk.NewInternalError(map[string]any{"error": st.Message})
	}
	return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
}

// cancel interrupts the root's turn and every sub-agent's.
func (s *session) cancel() error {
	return s.eng.Submit(protocol.Op{Type: protocol.OpInterrupt, ThreadID: s.root})
}

// pump forwards the engine's events until the engine closes its bus.
func (s *session) pump() {
	for ev := range s.events {
		s.onEvent(ev)
	}
}

// onEvent forwards one engine event. An event whose payload is missing
// (never from grove's engine) is logged and dropped, not dereferenced.
func (s *session) onEvent(ev protocol.Event) {
	msg, err := ev.Msg()
	if err != nil {
		logging.L().Warn("acp: dropped event", "session", string(s.id), "err", err)
		return
	}
	if ev.ThreadID != s.root {
		s.onSubAgentEvent(ev.ThreadID, msg)
		return
	}
	switch m := msg.(type) {
	case protocol.TurnCompletedMsg:
		s.mu.Lock()
		s.turnOver = true
		s.mu.Unlock()
	case protocol.StatusChangedMsg:
		s.mu.Lock()
		if (s.turnOver || s.cancelling) && s.turnEnd != nil && !m.Status.IsActive() {
			s.turnEnd <- m.Status
			s.turnEnd, s.turnOver = nil, false
		}
		s.mu.Unlock()
	case protocol.MessageDeltaMsg:
		s.mu.Lock()
		s.streamed[ev.ThreadID] = true
		s.mu.Unlock()
		s.update(sdk.UpdateAgentMessageText(m.Delta))
	case protocol.ReasoningDeltaMsg:
		s.update(sdk.UpdateAgentThoughtText(m.Delta))
	case protocol.AgentMessageMsg:
		s.mu.Lock()
		streamed := s.streamed[ev.ThreadID]
		delete(s.streamed, ev.ThreadID)
		s.mu.Unlock()
		if !streamed && m.Text != "" {
			s.update(sdk.UpdateAgentMessageText(m.Text))
		}
	case protocol.ExecOutputDeltaMsg:
		s.toolOutput(m.Call.CallID, m.Delta)
	case protocol.ToolCallBeginMsg:
		s.toolBegin(m.Call)
	case protocol.ToolCallEndMsg:
		s.toolEnd(m.Call)
	case protocol.PlanUpdatedMsg:
		s.update(planUpdate(m.Plan))
	case protocol.ApprovalRequestedMsg:
		s.askPermission(m.Request)
	case protocol.ApprovalResolvedMsg:
		s.withdrawPermission(m.Request.ID)
	case protocol.ErrorMsg:
		logging.L().Warn("acp: turn error", "session", string(s.id), "err", m.Text)
	}
}

func (s *session) toolBegin(tc protocol.ToolCall) {
	if tc.Name == "spawn_agent" {
		s.mu.Lock()
		s.tasks[tc.CallID] = argString(tc.Arguments, "message")
		s.mu.Unlock()
	}
	opts := []sdk.ToolCallStartOpt{
		sdk.WithStartKind(toolKind(tc)), sdk.WithStartStatus(sdk.ToolCallStatusInProgress),
		sdk.WithStartRawInput(rawArgs(tc.Arguments)),
	}
	if locs := toolLocations(tc, s.cwd()); len(locs) > 0 {
		opts = append(opts, sdk.WithStartLocations(locs))
	}
	s.update(sdk.StartToolCall(sdk.ToolCallId(tc.CallID), toolTitle(tc), opts...))
}

// maxLiveOutput bounds the command output an update carries (its end).
const maxLiveOutput = 16 << 10

// toolOutput shows a running command's output so far on its tool call
// (ACP's content of an update replaces the previous one, so it is the tail
// of everything, not the delta).
func (s *session) toolOutput(callID, delta string) {
	s.mu.Lock()
	out := s.liveOutput[callID] + delta
	if len(out) > maxLiveOutput {
		out = strings.ToValidUTF8(out[len(out)-maxLiveOutput:], "")
	}
	s.liveOutput[callID] = out
	s.mu.Unlock()
	s.update(sdk.UpdateToolCall(sdk.ToolCallId(callID), sdk.WithUpdateStatus(sdk.ToolCallStatusInProgress),
		sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock("```\n" + out + "\n```"))})))
}

func (s *session) toolEnd(tc protocol.ToolCall) {
	s.mu.Lock()
	delete(s.liveOutput, tc.CallID)
	s.mu.Unlock()
	status := sdk.ToolCallStatusCompleted
	if tc.IsError || (tc.ExitCode != nil && *tc.ExitCode != 0) {
		status = sdk.ToolCallStatusFailed
	}
	content := toolContent(tc, s.cwd())
	if tc.Name == "spawn_agent" && !tc.IsError {
		// The sub-agent runs on: its tool call stays in progress until the
		// child reaches a final status (see onSubAgentEvent).
		s.mu.Lock()
		s.spawnDone[tc.CallID] = true
		final := s.finished[tc.CallID]
		s.mu.Unlock()
		if final != nil {
			s.finishAnchor(tc.CallID, *final)
		}
		return
	}
	s.update(sdk.UpdateToolCall(sdk.ToolCallId(tc.CallID), sdk.WithUpdateStatus(status), sdk.WithUpdateContent(content), sdk.WithUpdateRawOutput(map[string]any{"output": tc.Output})))
}

// onSubAgentEvent shows a sub-agent's life on its anchor tool call.
func (s *session) onSubAgentEvent(thread protocol.ThreadID, msg protocol.EventMsg) {
	switch m := msg.(type) {
	case protocol.ThreadStartedMsg:
		s.childStarted(m.Thread)
		return
	case protocol.ApprovalRequestedMsg:
		s.askPermission(m.Request)
		return
	case protocol.ApprovalResolvedMsg:
		s.withdrawPermission(m.Request.ID)
		return
	}
	s.mu.Lock()
	anchor, ok := s.anchors[thread]
	label := s.labels[thread]
	s.mu.Unlock()
	if !ok {
		return
	}
	var line string
	var status *protocol.AgentStatus // set on status_changed
	switch m := msg.(type) {
	case protocol.ToolCallBeginMsg:
		line = fmt.Sprintf("%s • %s", label, toolTitle(m.Call))
	case protocol.AgentMessageMsg:
		line = fmt.Sprintf("%s: %s", label, clip(m.Text, 400))
	case protocol.StatusChangedMsg:
		line = fmt.Sprintf("%s: %s", label, m.Status.Kind)
		status = &m.Status
	default:
		return
	}
	s.mu.Lock()
	lines := append(s.progress[anchor], line)
	if len(lines) > maxProgressLines {
		lines = lines[len(lines)-maxProgressLines:]
	}
	s.progress[anchor] = lines
	text := strings.Join(lines, "\n")
	// Only the anchor's own child ends the tool call; descendants report.
	own := status != nil && s.owners[anchor] == thread
	final := own && status.IsFinal()
	spawnDone := s.spawnDone[anchor]
	if final {
		st := *status
		s.finished[anchor] = &st
	} else if own {
		delete(s.finished, anchor) // running again (send_input)
	}
	s.mu.Unlock()
	if final && spawnDone {
		s.finishAnchor(anchor, *status)
		return
	}
	s.update(sdk.UpdateToolCall(sdk.ToolCallId(anchor), sdk.WithUpdateStatus(sdk.ToolCallStatusInProgress),
		sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(text))})))
}

// finishAnchor ends a sub-agent's tool call with the child's final status
// and message.
func (s *session) finishAnchor(anchor string, st protocol.AgentStatus) {
	s.mu.Lock()
	text := strings.Join(s.progress[anchor], "\n")
	s.mu.Unlock()
	status := sdk.ToolCallStatusCompleted
	if st.Kind == protocol.StatusErrored {
		status = sdk.ToolCallStatusFailed
	}
	content := []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(text))}
	if st.HasMessage && st.Message != "" {
		content = append(content, sdk.ToolContent(sdk.TextBlock(st.Message)))
	}
	s.update(sdk.UpdateToolCall(sdk.ToolCallId(anchor), sdk.WithUpdateStatus(status), sdk.WithUpdateContent(content)))
}

func (s *session) childStarted(ti protocol.ThreadInfo) {
	role := ti.AgentType
	if role == "" {
		role = "default"
	}
	s.mu.Lock()
	anchor := ""
	if ti.ParentID == s.root {
		anchor = ti.SpawnCallID
	} else {
		anchor = s.anchors[ti.ParentID]
	}
	if anchor == "" {
		s.mu.Unlock()
		return
	}
	s.anchors[ti.ID] = anchor
	s.labels[ti.ID] = ti.Label()
	if ti.ParentID == s.root {
		s.owners[anchor] = ti.ID
	}
	task := s.tasks[anchor]
	s.mu.Unlock()
	if ti.ParentID == s.root {
		s.update(sdk.UpdateToolCall(sdk.ToolCallId(anchor), sdk.WithUpdateTitle(role+": "+clip(task, 120)), sdk.WithUpdateStatus(sdk.ToolCallStatusInProgress)))
	}
}

func (s *session) cwd() string {
	for _, ti := range s.eng.Threads() {
		if ti.ID == s.root {
			return ti.Cwd
		}
	}
	return ""
}
