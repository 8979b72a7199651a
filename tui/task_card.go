package tui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/grovecli/grove/protocol"
)

// subagentActivity is what a Task sub-agent is doing, folded from seed
// 004's SubagentActivity events on its parent's thread (§5.2): the card of
// the Task call that started it shows it live, as collab cards show their
// agents' status.
type subagentActivity struct {
	turns, maxTurns int
	tool            string // the tool running now ("" when none)
	lastTool        string // the last tool that ended
	lastOK          bool
	toolCalls       int
	grace           string // why the grace turn runs ("" outside it)
	ended           protocol.SubagentEventType
	err             string
}

// applyActivity folds one SubagentActivity event into the session. The
// data comes typed from the engine and as JSON values from a rollout; both
// read the same (a resumed card equals the live one).
func (s *session) applyActivity(ev protocol.SubagentActivityEvent) {
	a := s.activity[ev.AgentID]
	if a == nil {
		a = &subagentActivity{}
		s.activity[ev.AgentID] = a
	}
	d := ev.Data
	switch ev.EventType {
	case protocol.ActivityTurnStart, protocol.ActivityTurnComplete:
		var p protocol.SubagentProgress
		if b, err := json.Marshal(d["progress"]); err == nil && json.Unmarshal(b, &p) == nil {
			a.turns, a.maxTurns = p.TurnsCompleted, p.MaxTurns
		}
	case protocol.ActivityToolCallStart:
		a.tool, _ = d["tool_name"].(string)
	case protocol.ActivityToolCallEnd:
		a.lastTool, _ = d["tool_name"].(string)
		a.lastOK, _ = d["success"].(bool)
		a.tool = ""
		a.toolCalls++
	case protocol.ActivityGracePeriodStart:
		a.grace, _ = d["reason"].(string)
		if a.grace == "" {
			a.grace = "limit reached"
		}
	case protocol.ActivityGracePeriodEnd:
		a.grace = ""
	case protocol.ActivityCompleted:
		a.ended, a.tool, a.grace = ev.EventType, "", ""
		if n, ok := number(d["turns_used"]); ok {
			a.turns = n
		}
	case protocol.ActivityError:
		a.ended, a.tool, a.grace = ev.EventType, "", ""
		a.err, _ = d["error"].(string)
	default:
		return // STARTED opens the record; THOUGHT_CHUNK is not shown
	}
	s.touchCards(ev.AgentID)
}

// number reads a JSON number that may be an int (live) or a float64
// (decoded from a rollout).
func number(v any) (int, bool) {
	switch n := v.(type) {
	case int:
		return n, true
	case int64:
		return int(n), true
	case float64:
		return int(n), true
	}
	return 0, false
}

// activityLines are a Task sub-agent's activity under its status on a card:
// its turns against the limit, the tool it runs, the grace turn, the
// error it ended with.
func (r *renderer) activityLines(a *subagentActivity, inner int) []string {
	var parts []string
	if a.turns > 0 || a.maxTurns > 0 {
		t := plural(a.turns, "turn")
		if a.maxTurns > 0 && a.ended == "" {
			t = fmt.Sprintf("turn %d/%d", a.turns+1, a.maxTurns)
		}
		parts = append(parts, t)
	}
	if a.toolCalls > 0 {
		parts = append(parts, plural(a.toolCalls, "tool call"))
	}
	switch {
	case a.tool != "":
		parts = append(parts, r.th.running.Render("▸ "+a.tool))
	case a.lastTool != "" && a.ended == "":
		mark := "✓"
		if !a.lastOK {
			mark = "✗"
		}
		parts = append(parts, "last "+a.lastTool+" "+mark)
	}
	line := r.th.dim.Render("  " + strings.Join(parts, r.th.dim.Render(" · ")))
	out := []string{ansi.Truncate(line, inner, "…")}
	// The grace turn and an error are what the user must see: own rows.
	if a.grace != "" {
		out = append(out, r.th.warn.Render(clip("  ⏳ grace turn: "+a.grace, inner)))
	}
	if a.ended == protocol.ActivityError && a.err != "" {
		out = append(out, r.th.toolErr.Render(clip("  ✗ "+a.err, inner)))
	}
	return out
}

// taskOutcome is what a Task or TaskOutput call returned (seed 004's
// result object).
type taskOutcome struct {
	Status   string  `json:"status"`
	Result   any     `json:"result"`
	Message  string  `json:"message"`
	Turns    int     `json:"turns_used"`
	Tokens   int64   `json:"total_tokens"`
	Duration float64 `json:"duration_seconds"`
	AgentID  string  `json:"agent_id"`
}

// parseTaskOutcome reads a Task or TaskOutput output; nil when it is not
// the seed's JSON object.
func parseTaskOutcome(output string) *taskOutcome {
	var o taskOutcome
	if json.Unmarshal([]byte(output), &o) != nil || o.Status == "" {
		return nil
	}
	return &o
}

// outcomeLines are a finished Task call's rows: how it ended and the first
// line of its result.
func (r *renderer) outcomeLines(o *taskOutcome, inner int) []string {
	if o.Status == "async_launched" {
		return []string{r.th.dim.Render("  started in the background")}
	}
	parts := []string{"→ " + o.Status}
	if o.Turns > 0 {
		parts = append(parts, plural(o.Turns, "turn"))
	}
	if o.Tokens > 0 {
		parts = append(parts, humanTokens(o.Tokens)+" tokens")
	}
	if d := time.Duration(o.Duration * float64(time.Second)).Round(100 * time.Millisecond); d > 0 {
		parts = append(parts, d.String())
	}
	style := r.th.dim
	if o.Status != "goal" {
		style = r.th.warn
	}
	out := []string{ansi.Truncate(style.Render("  "+strings.Join(parts, " · ")), inner, "…")}
	if l := resultLine(o); l != "" {
		out = append(out, "  "+clip(l, inner-2))
	}
	return out
}

// resultLine is a Task result on one line: complete_task's result is often
// JSON (pretty-printed, per the seed), whose first line alone says nothing.
func resultLine(o *taskOutcome) string {
	result := o.Message
	switch v := o.Result.(type) {
	case string:
		result = v
	case nil:
	default:
		if b, err := json.Marshal(v); err == nil {
			result = string(b)
		}
	}
	var b bytes.Buffer
	if json.Valid([]byte(result)) && json.Compact(&b, []byte(result)) == nil {
		return b.String()
	}
	return firstLine(result)
}

// taskCallArgs are the arguments a running Task card shows before its
// agent exists.
func taskCallArgs(arguments string) (label, text string) {
	var a struct {
		AgentType    string `json:"agent_type"`
		Message      string `json:"message"`
		SubagentType string `json:"subagent_type"`
		Description  string `json:"description"`
	}
	_ = json.Unmarshal([]byte(arguments), &a)
	label, text = a.AgentType, a.Message
	if label == "" {
		label = a.SubagentType
	}
	if text == "" {
		text = a.Description
	}
	return label, text
}

// linkTaskChild puts a Task sub-agent on the card of the call that started
// it while that call still runs (its end names the agent too): live, the
// agent starts after the call; resumed, the agents are known first.
func (s *session) linkTaskChild(info protocol.ThreadInfo) {
	p := s.threads[info.ParentID]
	if p == nil || info.SpawnCallID == "" {
		return
	}
	if e := p.toolIdx[info.SpawnCallID]; e != nil && e.cardCall == "Task" && !containsID(e.cardIDs, info.ID) {
		s.showOnCard(e, append(e.cardIDs, info.ID))
	}
}

// linkTaskCall is linkTaskChild for a Task call that begins after its
// agent is known (a resumed session).
func (s *session) linkTaskCall(parent protocol.ThreadID, e *entry) {
	for _, id := range s.order {
		if c := s.threads[id]; c != nil && c.info.ParentID == parent && c.info.SpawnCallID == e.tool.CallID && !containsID(e.cardIDs, id) {
			s.showOnCard(e, append(e.cardIDs, id))
		}
	}
}
