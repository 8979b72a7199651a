package tui

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/grovecli/grove/protocol"
)

// cardResult is what a collaboration call returned, parsed from its
// output: the card shows this (history does not change), and the agents'
// live status only as a separate badge.
type cardResult struct {
	// statuses holds the status each agent had in the result (wait: the
	// final ones; close_agent: the status before closing; resume_agent: the
	// status after resuming).
	statuses map[protocol.ThreadID]protocol.AgentStatus
	timedOut bool
	// task is a Task or TaskOutput call's result (task_card.go).
	task *taskOutcome
}

// cardTargets are the agents a collaboration call names in its arguments.
func cardTargets(tc *protocol.ToolCall) []protocol.ThreadID {
	var a struct {
		ID      string   `json:"id"`
		AgentID string   `json:"agent_id"` // TaskOutput
		Resume  string   `json:"resume"`   // Task resuming an agent
		Target  string   `json:"target"`
		IDs     []string `json:"ids"`
		Targets []string `json:"targets"`
	}
	if json.Unmarshal([]byte(tc.Arguments), &a) != nil {
		return nil
	}
	var out []protocol.ThreadID
	for _, s := range append(append(a.IDs, a.Targets...), a.ID, a.AgentID, a.Resume, a.Target) {
		if s = strings.TrimSpace(s); s != "" && !containsID(out, protocol.ThreadID(s)) {
			out = append(out, protocol.ThreadID(s))
		}
	}
	return out
}

func containsID(ids []protocol.ThreadID, id protocol.ThreadID) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// parseCardResult reads a collaboration call's output. ids are the agents
// the call is about (from the end event, or the arguments); a spawn's
// output names the new agent. Malformed output yields an empty result.
func parseCardResult(tc *protocol.ToolCall, ids []protocol.ThreadID) ([]protocol.ThreadID, cardResult) {
	res := cardResult{statuses: map[protocol.ThreadID]protocol.AgentStatus{}}
	if tc.Name == "Task" || tc.Name == "TaskOutput" {
		// A Task that did not reach its goal is an error with the seed's
		// result object: its outcome is still what the card shows.
		res.task = parseTaskOutcome(tc.Output)
	}
	if tc.IsError || tc.Output == "" {
		return ids, res
	}
	switch tc.Name {
	case "spawn_agent":
		var out struct {
			AgentID string `json:"agent_id"`
		}
		if json.Unmarshal([]byte(tc.Output), &out) == nil && out.AgentID != "" && !containsID(ids, protocol.ThreadID(out.AgentID)) {
			ids = append(ids, protocol.ThreadID(out.AgentID))
		}
	case "wait":
		var out struct {
			Status   map[protocol.ThreadID]protocol.AgentStatus `json:"status"`
			TimedOut bool                                       `json:"timed_out"`
		}
		if json.Unmarshal([]byte(tc.Output), &out) == nil {
			res.timedOut = out.TimedOut
			for id, st := range out.Status {
				res.statuses[id] = st
				if !containsID(ids, id) {
					ids = append(ids, id)
				}
			}
		}
	case "Task", "TaskOutput":
		if res.task = parseTaskOutcome(tc.Output); res.task != nil && res.task.AgentID != "" && !containsID(ids, protocol.ThreadID(res.task.AgentID)) {
			ids = append(ids, protocol.ThreadID(res.task.AgentID))
		}
	case "close_agent", "resume_agent":
		var out struct {
			Status *protocol.AgentStatus `json:"status"`
		}
		if json.Unmarshal([]byte(tc.Output), &out) == nil && out.Status != nil && len(ids) == 1 {
			res.statuses[ids[0]] = *out.Status
		}
	}
	return ids, res
}

// cardLines renders a status card for a collaboration call: per agent,
// what the call returned, and its live status as a badge when that differs.
func (r *renderer) cardLines(s *session, e *entry, w int) []string {
	tc := e.tool
	w = min(w, maxCardWidth)
	inner := max(10, w-4)
	var body []string
	title := r.th.cardTitle.Render(tc.Name)
	switch {
	case e.running:
		title += " " + r.th.running.Render(r.spin())
		if tc.Name == "wait" {
			title += r.th.dim.Render(" waiting")
		}
	case e.result.timedOut:
		title += r.th.warn.Render(" timed out")
	case e.cardCall == "wait" && len(e.result.statuses) > 0:
		title += " " + r.th.dim.Render(clip("→ woke: "+wokeBy(s, e), max(4, inner-lipglossWidth(title)-1)))
	case refusedSpawn(e):
		title += r.th.toolErr.Render(" ✗ not started")
	}
	body = append(body, title)
	if refusedSpawn(e) {
		body = append(body, r.refusedAgent(tc, inner))
	}
	if len(e.cardIDs) == 0 && !e.running {
		if tc.IsError {
			for _, l := range wrap(tc.Output, inner) {
				body = append(body, r.th.toolErr.Render(l))
			}
		} else {
			body = append(body, r.th.dim.Render(clip(tc.Output, inner)))
		}
	}
	if e.running && len(e.cardIDs) == 0 {
		if label, text := taskCallArgs(tc.Arguments); label != "" || text != "" {
			body = append(body, r.th.dim.Render(clip(label+": "+text, inner)))
		}
	}
	for _, id := range e.cardIDs {
		body = append(body, r.cardAgent(s, e, id, inner)...)
	}
	if tc.IsError && len(e.cardIDs) > 0 && e.result.task == nil {
		body = append(body, r.th.toolErr.Render(clip(tc.Output, inner)))
	}
	box := r.th.card.Width(min(w, maxCardWidth)).Render(strings.Join(body, "\n"))
	return strings.Split(box, "\n")
}

// cardAgent is one agent's rows in a card.
func (r *renderer) cardAgent(s *session, e *entry, id protocol.ThreadID, inner int) []string {
	t := s.threads[id]
	if t == nil {
		return []string{r.th.dim.Render("■ " + string(id.Short()) + " not found")}
	}
	live := t.shown()
	st, returned := e.result.statuses[id]
	if !returned || e.running {
		st = live
	}
	line := fmt.Sprintf("%s %s %s %s", r.statusGlyph(st), r.th.cardTitle.Render(t.name()), r.th.dim.Render(id.Short()), r.th.dim.Render(statusWord(st)))
	switch {
	case e.cardCall == "close_agent" && !e.running && !e.tool.IsError:
		line += r.th.closed.Render(" → closed")
	case returned && !e.running && (live.Kind != st.Kind || t.closed):
		glyph, word := r.statusGlyph(live), statusWord(live)
		if t.closed {
			glyph, word = r.statusGlyph(protocol.Shutdown()), "closed"
		}
		line += r.th.dim.Render(" · now ") + glyph + r.th.dim.Render(" "+word)
	case !returned && !e.running && e.cardCall == "wait" && e.result.timedOut:
		line += r.th.dim.Render(" · not finished")
	}
	out := []string{padRight(line, inner)}
	if note := t.note(); note != "" {
		out = append(out, r.th.dim.Render("  note: "+clip(note, inner-8)))
	}
	if a := s.activity[id]; a != nil && (e.running || e.result.task == nil || e.result.task.Status == "async_launched") {
		out = append(out, r.activityLines(a, inner)...)
	}
	if o := e.result.task; o != nil && !e.running {
		return append(out, r.outcomeLines(o, inner)...)
	}
	if st.Kind == protocol.StatusCompleted || st.Kind == protocol.StatusErrored {
		// One plain line: a reply's Markdown marks (**, `) are not shown raw.
		if msg := plainSummary(st.Message, inner-2); msg != "" {
			out = append(out, "  "+msg)
		}
	}
	return out
}

// liveWord is the status in words, with the closed marker: "completed,
// closed" for an agent closed after it finished; "ready" for a thread that
// has not run a turn yet.
func liveWord(t *threadView) string {
	if t.fresh() {
		return "ready"
	}
	w := statusWord(t.shown())
	if t.closed && t.shown().Kind != protocol.StatusShutdown {
		w += ", closed"
	}
	return w
}

// threadGlyph is a thread's status glyph; a thread that has not run yet
// shows an empty circle, not a check mark.
func (r *renderer) threadGlyph(t *threadView) string {
	if t.fresh() {
		return r.th.pending.Render("○")
	}
	return r.statusGlyph(t.shown())
}

// wokeBy says which agents ended a wait, and how ("explorer completed").
func wokeBy(s *session, e *entry) string {
	var parts []string
	for _, id := range e.cardIDs {
		st, ok := e.result.statuses[id]
		if !ok {
			continue
		}
		label := string(id.Short())
		if t := s.threads[id]; t != nil {
			label = t.name()
		}
		parts = append(parts, label+" "+statusWord(st))
	}
	return strings.Join(parts, ", ")
}

// refusedSpawn: a spawn that started no agent (the agent limit, a bad
// role): its card says so with ✗ and names what was asked (issue 35 item
// 15), as a failed command says ✗.
func refusedSpawn(e *entry) bool {
	return (e.cardCall == "spawn_agent" || e.cardCall == "Task") && !e.running && e.tool.IsError && len(e.cardIDs) == 0
}

// refusedAgent is the line naming the agent a refused spawn asked for:
// "✗ worker (careful) · fix the parser".
func (r *renderer) refusedAgent(tc *protocol.ToolCall, inner int) string {
	label, text := taskCallArgs(tc.Arguments)
	var a struct {
		AgentName string `json:"agent_name"`
	}
	_ = json.Unmarshal([]byte(tc.Arguments), &a)
	if label == "" {
		label = "default"
	}
	if a.AgentName != "" {
		label += " (" + a.AgentName + ")"
	}
	line := r.th.toolErr.Render("✗ ") + r.th.cardTitle.Render(label)
	if text = firstLine(text); text != "" {
		line += r.th.dim.Render(" · " + clip(text, max(4, inner-lipglossWidth(label)-5)))
	}
	return line
}
