package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/grovecli/grove/protocol"
)

// Codex exec's JSONL events, in the shapes of codex-rs/exec/src/exec_events.rs
// (openai/codex 08a1f30ca23f51922d1a4a4965b5ab999b64bead): what `codex exec
// --json` prints and what @openai/codex-sdk parses.
type codexEvent struct {
	Type     string      `json:"type"`
	ThreadID string      `json:"thread_id,omitempty"` // thread.started
	Usage    *codexUsage `json:"usage,omitempty"`     // turn.completed
	Error    *codexError `json:"error,omitempty"`     // turn.failed
	Item     any         `json:"item,omitempty"`      // item.*
	Message  string      `json:"message,omitempty"`   // error
}

type codexUsage struct {
	InputTokens       int64 `json:"input_tokens"`
	CachedInputTokens int64 `json:"cached_input_tokens"`
	OutputTokens      int64 `json:"output_tokens"`
}

type codexError struct {
	Message string `json:"message"`
}

// Items: ThreadItem is {id, type, ...details} with details flattened.
type (
	codexTextItem struct { // agent_message, reasoning
		ID   string `json:"id"`
		Type string `json:"type"`
		Text string `json:"text"`
	}
	codexCommandItem struct {
		ID               string `json:"id"`
		Type             string `json:"type"`
		Command          string `json:"command"`
		AggregatedOutput string `json:"aggregated_output"`
		ExitCode         *int   `json:"exit_code"`
		Status           string `json:"status"`
	}
	codexFileChange struct {
		Path string `json:"path"`
		Kind string `json:"kind"`
	}
	codexFileChangeItem struct {
		ID      string            `json:"id"`
		Type    string            `json:"type"`
		Changes []codexFileChange `json:"changes"`
		Status  string            `json:"status"`
	}
	codexMCPResult struct {
		Content           []json.RawMessage `json:"content"`
		StructuredContent json.RawMessage   `json:"structured_content"`
	}
	codexMCPItem struct {
		ID        string          `json:"id"`
		Type      string          `json:"type"`
		Server    string          `json:"server"`
		Tool      string          `json:"tool"`
		Arguments json.RawMessage `json:"arguments"`
		Result    *codexMCPResult `json:"result"`
		Error     *codexError     `json:"error"`
		Status    string          `json:"status"`
	}
	codexTodo struct {
		Text      string `json:"text"`
		Completed bool   `json:"completed"`
	}
	codexTodoItem struct {
		ID    string      `json:"id"`
		Type  string      `json:"type"`
		Items []codexTodo `json:"items"`
	}
	codexAgentState struct {
		Status  string  `json:"status"`
		Message *string `json:"message"`
	}
	codexCollabItem struct {
		ID                string                     `json:"id"`
		Type              string                     `json:"type"`
		Tool              string                     `json:"tool"`
		SenderThreadID    string                     `json:"sender_thread_id"`
		ReceiverThreadIDs []string                   `json:"receiver_thread_ids"`
		Prompt            *string                    `json:"prompt"`
		AgentsStates      map[string]codexAgentState `json:"agents_states"`
		Status            string                     `json:"status"`
	}
	// codexWebSearchItem is a hosted web search (exec_events.rs
	// WebSearchItem). Codex also flattens the search's own id into the
	// item, printing "id" twice; grove prints the item's id once.
	codexWebSearchItem struct {
		ID     string               `json:"id"`
		Type   string               `json:"type"`
		Query  string               `json:"query"`
		Action codexWebSearchAction `json:"action"`
	}
	// codexWebSearchAction is codex_protocol models.rs WebSearchAction:
	// tagged by type, its absent fields left out.
	codexWebSearchAction struct {
		Type    string `json:"type"`
		Query   string `json:"query,omitempty"`
		URL     string `json:"url,omitempty"`
		Pattern string `json:"pattern,omitempty"`
	}
	codexErrorItem struct {
		ID      string `json:"id"`
		Type    string `json:"type"`
		Message string `json:"message"`
	}
)

// codexJSONL turns the root thread's grove events into Codex's JSONL, as
// codex-rs/exec/src/event_processor_with_jsonl_output.rs does for Codex's
// own: commands start and complete, patches and messages complete, the
// plan is one todo_list item per turn, a turn ends completed (with the
// thread's token usage) or failed (after an error). Sub-agents' own events
// are not items of the root's thread; their spawn/wait/send/close calls
// are collab_tool_call items.
type codexJSONL struct {
	enc       *json.Encoder
	root      protocol.ThreadID
	next      int
	calls     map[string]any // call id → the started item
	declined  map[string]bool
	todo      *codexTodoItem
	reasoning strings.Builder
	lastError *codexError
	usage     protocol.TokenUsage
	inTurn    bool
	err       error
}

func newCodexJSONL(w io.Writer, root protocol.ThreadID) *codexJSONL {
	return &codexJSONL{enc: json.NewEncoder(w), root: root, calls: map[string]any{}, declined: map[string]bool{}}
}

func (c *codexJSONL) emit(ev codexEvent) {
	if c.err == nil {
		c.err = c.enc.Encode(ev)
	}
}

func (c *codexJSONL) itemID() string {
	id := fmt.Sprintf("item_%d", c.next)
	c.next++
	return id
}

// started prints thread.started (the id `exec resume` takes).
func (c *codexJSONL) started() { c.emit(codexEvent{Type: "thread.started", ThreadID: string(c.root)}) }

// event translates one grove event; it returns the first write error.
func (c *codexJSONL) event(ev protocol.Event) error {
	m, err := ev.Msg()
	if err != nil || ev.ThreadID != c.root {
		return c.err
	}
	if _, ok := m.(protocol.ReasoningDeltaMsg); !ok {
		c.flushReasoning()
	}
	switch m := m.(type) {
	case protocol.TurnStartedMsg:
		c.inTurn, c.lastError = true, nil
		c.emit(codexEvent{Type: "turn.started"})
	case protocol.ReasoningDeltaMsg:
		c.reasoning.WriteString(m.Delta)
	case protocol.AgentMessageMsg:
		if strings.TrimSpace(m.Text) != "" {
			c.emit(codexEvent{Type: "item.completed", Item: codexTextItem{ID: c.itemID(), Type: "agent_message", Text: m.Text}})
		}
	case protocol.ToolCallBeginMsg:
		c.toolBegin(m.Call)
	case protocol.ExecOutputDeltaMsg:
		if it, ok := c.calls[m.Call.CallID].(*codexCommandItem); ok {
			it.AggregatedOutput += m.Delta
			c.emit(codexEvent{Type: "item.updated", Item: *it})
		}
	case protocol.ToolCallEndMsg:
		c.toolEnd(m.Call)
	case protocol.ApprovalResolvedMsg:
		// A request cancelled unanswered was declined by nobody.
		if (m.Decision == protocol.DecisionDenied || m.Decision == protocol.DecisionAbort) && m.Resolution != protocol.ResolvedCancelled {
			c.declined[m.Request.CallID] = true
		}
	case protocol.PlanUpdatedMsg:
		c.plan(m.Plan)
	case protocol.TokenUsageMsg:
		c.usage = m.Total
	case protocol.ErrorMsg:
		c.lastError = &codexError{Message: m.Text}
		c.emit(codexEvent{Type: "error", Message: m.Text})
	case protocol.WarningMsg:
		c.emit(codexEvent{Type: "item.completed", Item: codexErrorItem{ID: c.itemID(), Type: "error", Message: m.Text}})
	case protocol.StreamRetryMsg:
		c.emit(codexEvent{Type: "error", Message: m.Text})
	case protocol.TurnCompletedMsg:
		var fail *codexError
		if msg, failed := m.Failure(); failed {
			fail = &codexError{Message: msg}
		}
		c.endTurn(fail)
	case protocol.WebSearchMsg:
		c.emit(codexEvent{Type: "item.completed", Item: codexWebSearchItem{ID: c.itemID(), Type: "web_search", Query: webSearchQuery(m.Call), Action: webSearchAction(m.Call)}})
	}
	return c.err
}

func (c *codexJSONL) flushReasoning() {
	if c.reasoning.Len() == 0 {
		return
	}
	text := strings.TrimSpace(c.reasoning.String())
	c.reasoning.Reset()
	if text != "" {
		c.emit(codexEvent{Type: "item.completed", Item: codexTextItem{ID: c.itemID(), Type: "reasoning", Text: text}})
	}
}

// endTurn closes the turn: the todo list and commands still open
// complete, then turn.failed (an error was seen, or fail says why) or
// turn.completed with usage.
func (c *codexJSONL) endTurn(fail *codexError) {
	if !c.inTurn {
		return
	}
	c.inTurn = false
	c.flushReasoning()
	if c.todo != nil {
		c.emit(codexEvent{Type: "item.completed", Item: *c.todo})
		c.todo = nil
	}
	for id, it := range c.calls {
		if cmd, ok := it.(*codexCommandItem); ok {
			cmd.Status = "completed"
			c.emit(codexEvent{Type: "item.completed", Item: *cmd})
		}
		delete(c.calls, id)
	}
	if fail == nil {
		fail = c.lastError
	}
	if fail != nil {
		c.emit(codexEvent{Type: "turn.failed", Error: fail})
		return
	}
	c.emit(codexEvent{Type: "turn.completed", Usage: &codexUsage{InputTokens: c.usage.InputTokens, CachedInputTokens: c.usage.CachedInputTokens, OutputTokens: c.usage.OutputTokens}})
}

// finish ends a turn the root left open (it errored or was interrupted
// before turn_completed): the SDK waits for turn.completed or turn.failed.
func (c *codexJSONL) finish(final protocol.AgentStatus) error {
	if c.inTurn {
		msg := final.Message
		if msg == "" {
			msg = "the turn ended " + string(final.Kind)
		}
		c.endTurn(&codexError{Message: msg})
	}
	return c.err
}

// webSearchAction is the search's action as Codex prints it: search,
// open_page, find_in_page, or other for an action grove does not know.
func webSearchAction(ws protocol.WebSearchCall) codexWebSearchAction {
	switch {
	case ws.Action == "search" || (ws.Action == "" && ws.Query != ""):
		return codexWebSearchAction{Type: "search", Query: ws.Query}
	case ws.Action == "open_page" || ws.Action == "find_in_page":
		return codexWebSearchAction{Type: ws.Action, URL: ws.URL, Pattern: ws.Pattern}
	}
	return codexWebSearchAction{Type: "other"}
}

// webSearchQuery is what a web search looked for: its query, or the page
// it opened (and the text it looked for there).
func webSearchQuery(ws protocol.WebSearchCall) string {
	switch {
	case ws.Query != "":
		return ws.Query
	case ws.Pattern != "":
		return ws.Pattern + " in " + ws.URL
	}
	return ws.URL
}
