package tui

import (
	"time"

	"github.com/grovecli/grove/protocol"
)

// entryKind says what a transcript entry shows.
type entryKind int

const (
	entryUser entryKind = iota
	entryAssistant
	entryTool
	entryCard
	entryPlan
	entryError
	entryWarning
	entryInfo
)

// entry is one block of a transcript. Rendered lines are cached per width
// and recomputed only when the entry changes.
type entry struct {
	kind      entryKind
	text      string
	final     bool // assistant message complete: render Markdown
	tool      *protocol.ToolCall
	running   bool // tool call not finished
	collapsed bool
	plan      *protocol.Plan
	cardIDs   []protocol.ThreadID
	cardCall  string // collab tool name of a status card

	cacheW     int
	cacheLines []string
	dirty      bool
}

func (e *entry) touch() { e.dirty = true }

// threadView is the TUI's picture of one thread, built from events.
type threadView struct {
	info      protocol.ThreadInfo
	status    protocol.AgentStatus
	statusAt  time.Time
	entries   []*entry
	streaming *entry
	usage     protocol.TokenUsage
	lastTool  string
	children  []protocol.ThreadID
	toolIdx   map[string]*entry // call id → entry
	// scroll: top line when not following the bottom.
	follow bool
	top    int
}

func newThreadView(info protocol.ThreadInfo) *threadView {
	return &threadView{info: info, status: info.Status, statusAt: info.StartedAt, toolIdx: map[string]*entry{}, follow: true}
}

func (t *threadView) add(e *entry) *entry {
	t.entries = append(t.entries, e)
	return e
}

// session is every thread the TUI knows, in tree order.
type session struct {
	threads map[protocol.ThreadID]*threadView
	order   []protocol.ThreadID
	root    protocol.ThreadID
	// cards lists the status-card entries that show a thread, so a status
	// change re-renders just those.
	cards map[protocol.ThreadID][]*entry
}

func newSession() *session {
	return &session{threads: map[protocol.ThreadID]*threadView{}, cards: map[protocol.ThreadID][]*entry{}}
}

func (s *session) ensure(info protocol.ThreadInfo) *threadView {
	if t, ok := s.threads[info.ID]; ok {
		t.info = info
		return t
	}
	t := newThreadView(info)
	s.threads[info.ID] = t
	s.order = append(s.order, info.ID)
	if info.ParentID == "" && s.root == "" {
		s.root = info.ID
	}
	if p, ok := s.threads[info.ParentID]; ok {
		p.children = append(p.children, info.ID)
	}
	return t
}

// collabTools get status cards.
var collabTools = map[string]bool{"spawn_agent": true, "wait": true, "close_agent": true, "resume_agent": true, "send_input": true}

// apply folds one event into the session. It returns the thread touched.
func (s *session) apply(ev protocol.Event) *threadView {
	if ev.Type == protocol.EventThreadStarted && ev.Thread != nil {
		t := s.ensure(*ev.Thread)
		t.status = ev.Thread.Status
		t.statusAt = ev.Timestamp
		return t
	}
	t := s.threads[ev.ThreadID]
	if t == nil {
		return nil
	}
	switch ev.Type {
	case protocol.EventStatusChanged:
		t.status, t.statusAt = *ev.Status, ev.Timestamp
		for _, c := range s.cards[ev.ThreadID] {
			c.touch()
		}
	case protocol.EventThreadClosed:
		t.status = protocol.Shutdown()
		for _, c := range s.cards[ev.ThreadID] {
			c.touch()
		}
	case protocol.EventUserMessage:
		t.add(&entry{kind: entryUser, text: ev.Message})
	case protocol.EventAgentInput:
		// Another agent's message: shown as from that agent, never as the user's.
		from := "agent " + ev.From.Short()
		if f := s.threads[ev.From]; f != nil {
			from = f.info.Label()
		}
		t.add(&entry{kind: entryInfo, text: "message from " + from + ":\n" + ev.Message})
	case protocol.EventMessageDelta:
		if t.streaming == nil {
			t.streaming = t.add(&entry{kind: entryAssistant})
		}
		t.streaming.text += ev.Delta
		t.streaming.touch()
	case protocol.EventMessageReset:
		if t.streaming != nil {
			t.streaming.text = ""
			t.streaming.touch()
		}
	case protocol.EventMessage:
		if t.streaming == nil {
			t.streaming = t.add(&entry{kind: entryAssistant})
		}
		t.streaming.text, t.streaming.final = ev.Message, true
		t.streaming.touch()
		t.streaming = nil
	case protocol.EventToolCallBegin:
		t.streaming = nil
		t.lastTool = ev.Tool.Name
		if ev.Tool.Name == "update_plan" {
			return t // shown as the plan itself (plan_updated)
		}
		tc := *ev.Tool
		e := &entry{kind: entryTool, tool: &tc, running: true, collapsed: true}
		if collabTools[tc.Name] {
			e.kind, e.cardCall = entryCard, tc.Name
		}
		t.toolIdx[tc.CallID] = t.add(e)
	case protocol.EventToolCallEnd:
		tc := *ev.Tool
		e := t.toolIdx[tc.CallID]
		if e == nil && tc.Name == "update_plan" {
			if tc.IsError {
				t.add(&entry{kind: entryError, text: tc.Output})
			}
			return t
		}
		if e == nil {
			e = t.add(&entry{kind: entryTool, collapsed: true})
			if collabTools[tc.Name] {
				e.kind, e.cardCall = entryCard, tc.Name
			}
		}
		e.tool, e.running = &tc, false
		if e.kind == entryCard {
			e.cardIDs = tc.AgentIDs
			for _, id := range tc.AgentIDs {
				s.cards[id] = append(s.cards[id], e)
			}
		}
		e.touch()
	case protocol.EventPlanUpdated:
		p := *ev.Plan
		t.add(&entry{kind: entryPlan, plan: &p})
	case protocol.EventError:
		t.streaming = nil
		t.add(&entry{kind: entryError, text: ev.Message})
	case protocol.EventWarning:
		t.add(&entry{kind: entryWarning, text: ev.Message})
	case protocol.EventStreamRetry:
		t.add(&entry{kind: entryWarning, text: "↻ " + ev.Message})
	case protocol.EventNoteUpdated:
		if ev.Note != nil {
			t.info.Note = *ev.Note
		}
	case protocol.EventTokenUsage:
		if ev.TotalUsage != nil {
			t.usage = *ev.TotalUsage
		}
	case protocol.EventBackground:
		if bg := ev.Background; bg != nil && bg.Warning {
			t.add(&entry{kind: entryWarning, text: bg.Message})
		}
	case protocol.EventTurnCompleted:
		t.streaming = nil
	case protocol.EventInbox:
		t.applyInbox(ev.Inbox)
	}
	return t
}

// loadHistory rebuilds a transcript from stored items (resumed sessions).
func (t *threadView) loadHistory(items []protocol.Item) {
	calls := map[string]*entry{}
	for _, it := range items {
		switch it.Type {
		case protocol.ItemMessage:
			if it.Role == protocol.RoleAssistant {
				t.add(&entry{kind: entryAssistant, text: it.Content, final: true})
			} else if it.Role == protocol.RoleUser {
				t.add(&entry{kind: entryUser, text: it.Content})
			} else if it.Role == protocol.RoleAgent {
				t.add(&entry{kind: entryInfo, text: "message from agent " + it.From.Short() + ":\n" + it.Content})
			}
		case protocol.ItemFunctionCall:
			if it.Name == "update_plan" {
				continue
			}
			// History has no live status: collaboration calls show as plain calls.
			calls[it.CallID] = t.add(&entry{kind: entryTool, tool: &protocol.ToolCall{CallID: it.CallID, Name: it.Name, Arguments: it.Arguments}, collapsed: true})
		case protocol.ItemFunctionCallOutput:
			if e := calls[it.CallID]; e != nil {
				e.tool.Output = it.Output
			}
		}
	}
}

// treeOrder lists threads depth-first from the root, children in spawn order.
func (s *session) treeOrder() []protocol.ThreadID {
	var out []protocol.ThreadID
	seen := map[protocol.ThreadID]bool{}
	var visit func(id protocol.ThreadID)
	visit = func(id protocol.ThreadID) {
		if seen[id] {
			return
		}
		seen[id] = true
		out = append(out, id)
		if t := s.threads[id]; t != nil {
			for _, c := range t.children {
				visit(c)
			}
		}
	}
	for _, id := range s.order {
		if t := s.threads[id]; t != nil && (t.info.ParentID == "" || s.threads[t.info.ParentID] == nil) {
			visit(id)
		}
	}
	return out
}
