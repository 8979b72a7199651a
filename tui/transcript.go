package tui

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/grovecli/grove/protocol"
)

// renderer turns entries into lines; it is owned by the root model.
type renderer struct {
	th  theme
	md  markdown
	now func() time.Time
	// frame is the spinner frame (advanced by the tick).
	frame int
}

var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

func (r *renderer) spin() string { return spinnerFrames[r.frame%len(spinnerFrames)] }

// lines returns an entry's rendered lines at width w, cached.
func (r *renderer) lines(s *session, e *entry, w int) []string {
	live := e.kind == entryCard && hasActive(s, e.cardIDs) || e.running
	if !e.dirty && e.cacheW == w && e.cacheLines != nil && !live {
		return e.cacheLines
	}
	var out []string
	switch e.kind {
	case entryUser:
		for i, l := range wrap(e.text, w-2) {
			bar := "│ "
			if i == 0 {
				bar = "› "
			}
			out = append(out, r.th.userBar.Render(bar)+r.th.user.Render(l))
		}
	case entryAssistant:
		// Prose stays at a readable measure on very wide terminals.
		mw := min(w, maxProseWidth)
		if e.final {
			// A two-column margin, as the Markdown renderer always had.
			for _, l := range strings.Split(r.md.render(e.text, mw-2), "\n") {
				out = append(out, "  "+l)
			}
		} else {
			out = wrap(e.text, mw)
		}
	case entryTool:
		out = r.toolLines(e, w)
	case entryCard:
		out = r.cardLines(s, e, w)
	case entryPlan:
		out = r.planLines(e.plan, w)
	case entryError:
		out = wrap(r.th.errStyle.Render("✗ ")+e.text, w)
	case entryWarning:
		out = wrap(r.th.warn.Render("! ")+r.th.dim.Render(e.text), w)
	case entryInfo:
		out = wrap(r.th.dim.Render(e.text), w)
	}
	out = append(out, "")
	e.cacheW, e.cacheLines, e.dirty = w, out, false
	return out
}

func hasActive(s *session, ids []protocol.ThreadID) bool {
	for _, id := range ids {
		if t := s.threads[id]; t != nil && !t.status.IsFinal() && t.status.Kind != protocol.StatusInterrupted {
			return true
		}
	}
	return false
}

// toolSummary is a one-line description of a tool call's arguments.
func toolSummary(tc *protocol.ToolCall) string {
	var args map[string]any
	_ = json.Unmarshal([]byte(tc.Arguments), &args)
	pick := func(keys ...string) string {
		for _, k := range keys {
			if v, ok := args[k].(string); ok && v != "" {
				return v
			}
		}
		return ""
	}
	switch tc.Name {
	case "exec_command":
		return "$ " + pick("cmd")
	case "apply_patch":
		var files []string
		for _, l := range strings.Split(pick("input"), "\n") {
			for _, p := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: "} {
				if strings.HasPrefix(l, p) {
					files = append(files, strings.TrimPrefix(l, p))
				}
			}
		}
		return strings.Join(files, ", ")
	case "read_file", "list_dir":
		return pick("path", "file_path", "dir_path")
	case "grep_files":
		return pick("pattern")
	case "update_plan":
		return pick("explanation")
	}
	return tc.Arguments
}

func (r *renderer) toolLines(e *entry, w int) []string {
	tc := e.tool
	mark := r.th.running.Render(r.spin())
	if !e.running {
		switch {
		case tc.IsError:
			mark = r.th.failed.Render("✗")
		default:
			mark = r.th.done.Render("✓")
		}
	}
	name := displayToolName(tc.Name)
	head := fmt.Sprintf("%s %s %s", mark, r.th.toolName.Render(name), r.th.toolArgs.Render(clip(toolSummary(tc), max(10, w-len(name)-4))))
	out := []string{padRight(head, w)}
	if e.running || tc.Output == "" {
		return out
	}
	meta := ""
	if tc.ExitCode != nil {
		meta = fmt.Sprintf("exit %d · ", *tc.ExitCode)
	}
	if tc.DurationMS > 0 {
		meta += fmt.Sprintf("%.1fs · ", float64(tc.DurationMS)/1000)
	}
	output := tc.Output
	if tc.Name == "exec_command" {
		// Exit code and wall time are in the meta line; preview the output itself.
		if _, rest, ok := strings.Cut(output, "\nOutput:\n"); ok {
			output = rest
		}
	}
	outLines := strings.Split(strings.TrimRight(output, "\n"), "\n")
	limit := 4
	if !e.collapsed {
		limit = 400
	}
	style := r.th.toolOut
	if tc.IsError {
		style = r.th.toolErr
	}
	for i, l := range outLines {
		if i == limit {
			out = append(out, r.th.dim.Render(fmt.Sprintf("  … %d more lines (ctrl+o to expand)", len(outLines)-limit)))
			break
		}
		out = append(out, "  "+style.Render(clip(l, w-2)))
	}
	if meta != "" {
		out = append(out, r.th.dim.Render("  "+strings.TrimSuffix(meta, " · ")))
	}
	return out
}

func (r *renderer) statusGlyph(st protocol.AgentStatus) string {
	switch st.Kind {
	case protocol.StatusRunning:
		return r.th.running.Render(r.spin())
	case protocol.StatusPendingInit:
		return r.th.pending.Render(r.spin())
	case protocol.StatusCompleted:
		return r.th.done.Render("✓")
	case protocol.StatusErrored:
		return r.th.failed.Render("✗")
	case protocol.StatusInterrupted:
		return r.th.interrupted.Render("‖")
	case protocol.StatusShutdown, protocol.StatusNotFound:
		return r.th.closed.Render("■")
	}
	return "?"
}

func roleLabel(info protocol.ThreadInfo) string { return info.Label() }

// cardLines renders a status card for a collaboration call: the target
// agents with their live status, updating in place.
func (r *renderer) cardLines(s *session, e *entry, w int) []string {
	tc := e.tool
	w = min(w, maxCardWidth)
	inner := max(10, w-4)
	var body []string
	title := r.th.cardTitle.Render(tc.Name)
	if e.running {
		title += " " + r.th.running.Render(r.spin())
		if tc.Name == "wait" {
			title += r.th.dim.Render(" waiting")
		}
	}
	body = append(body, title)
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
		var args struct {
			AgentType string   `json:"agent_type"`
			Message   string   `json:"message"`
			IDs       []string `json:"ids"`
		}
		_ = json.Unmarshal([]byte(tc.Arguments), &args)
		if args.AgentType != "" || args.Message != "" {
			body = append(body, r.th.dim.Render(clip(args.AgentType+": "+args.Message, inner)))
		}
		for _, id := range args.IDs {
			e.cardIDs = append(e.cardIDs, protocol.ThreadID(id))
		}
	}
	for _, id := range e.cardIDs {
		t := s.threads[id]
		if t == nil {
			body = append(body, r.th.dim.Render("■ "+string(id.Short())+" not found"))
			continue
		}
		line := fmt.Sprintf("%s %s %s", r.statusGlyph(t.status), r.th.cardTitle.Render(roleLabel(t.info)), r.th.dim.Render(id.Short()))
		line += " " + r.th.dim.Render(statusWord(t.status))
		body = append(body, padRight(line, inner))
		if t.info.Note != "" {
			body = append(body, r.th.dim.Render("  note: "+clip(t.info.Note, inner-8)))
		}
		if t.status.Kind == protocol.StatusCompleted || t.status.Kind == protocol.StatusErrored {
			if msg := firstLine(t.status.Message); msg != "" {
				body = append(body, "  "+clip(msg, inner-2))
			}
		}
	}
	box := r.th.card.Width(min(w, maxCardWidth)).Render(strings.Join(body, "\n"))
	return strings.Split(box, "\n")
}

// maxCardWidth and maxProseWidth keep cards and text readable on very
// wide terminals.
const (
	maxCardWidth  = 100
	maxProseWidth = 120
)

func statusWord(st protocol.AgentStatus) string {
	switch st.Kind {
	case protocol.StatusPendingInit:
		return "starting"
	case protocol.StatusShutdown:
		return "closed"
	}
	return string(st.Kind)
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func (r *renderer) planLines(p *protocol.Plan, w int) []string {
	out := []string{r.th.cardTitle.Render("Plan")}
	if p.Explanation != "" {
		out = append(out, r.th.dim.Render(clip(p.Explanation, w)))
	}
	for _, st := range p.Steps {
		switch st.Status {
		case "completed":
			out = append(out, r.th.planDone.Render("  ✔ ")+r.th.dim.Render(clip(st.Step, w-4)))
		case "in_progress":
			out = append(out, r.th.planNow.Render("  ▸ "+clip(st.Step, w-4)))
		default:
			out = append(out, r.th.planTodo.Render("  □ "+clip(st.Step, w-4)))
		}
	}
	return out
}

// transcriptLines renders the visible window of a thread's transcript:
// only entries intersecting the window are rendered (cached otherwise).
func (r *renderer) transcriptLines(s *session, t *threadView, w, h int) []string {
	var all []string
	for _, e := range t.entries {
		all = append(all, r.lines(s, e, w)...)
	}
	if t.streaming == nil && t.status.Kind == protocol.StatusRunning {
		all = append(all, r.th.running.Render(r.spin())+r.th.dim.Render(" working…"))
	}
	total := len(all)
	top := t.top
	if t.follow || top > total-h {
		top = max(0, total-h)
		if t.follow {
			t.top = top
		}
	}
	top = max(0, top)
	end := min(total, top+h)
	return all[top:end]
}

// totalLines is how tall a transcript is at width w.
func (r *renderer) totalLines(s *session, t *threadView, w int) int {
	n := 0
	for _, e := range t.entries {
		n += len(r.lines(s, e, w))
	}
	return n
}
