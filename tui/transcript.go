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
	// A live card changes with the spinner (and on touch: status, label or
	// note of an agent it shows); a running tool also with time.
	live := e.kind == entryCard && hasActive(s, e.cardIDs) || e.running
	sameFrame := e.kind == entryCard && e.cacheFrame == r.frame
	if !e.dirty && e.cacheW == w && e.cacheLines != nil && (!live || sameFrame) {
		return e.cacheLines
	}
	var out []string
	switch e.kind {
	case entryUser:
		rows := wrap(e.text, w-2)
		if n := len(rows) - userMessageRows; n > 1 && e.collapsed {
			// A long paste reads as the chip it was typed as (issue 35
			// item 21); ctrl+f still finds its text, /export keeps it whole.
			rows = append(rows[:userMessageRows:userMessageRows], r.th.dim.Render("… "+plural(n, "more line")+" sent"))
		}
		for i, l := range rows {
			bar := "│ "
			if i == 0 {
				bar = "› "
			}
			if e.selected {
				// The message esc-esc would rewind to: highlighted whole.
				out = append(out, r.th.tableSel.Render(padRight(bar+ansiStrip(l), w)))
				continue
			}
			out = append(out, r.th.userBar.Render(bar)+r.th.user.Render(l))
		}
	case entryAssistant:
		// Prose stays at a readable measure on very wide terminals.
		mw := min(w, maxProseWidth)
		if e.final {
			out = r.proseLines(e.text, mw)
		} else {
			out = r.streamingLines(e, mw)
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
	e.cacheW, e.cacheLines, e.dirty, e.cacheFrame = w, out, false, r.frame
	return out
}

func hasActive(s *session, ids []protocol.ThreadID) bool {
	for _, id := range ids {
		if t := s.threads[id]; t != nil && t.status.IsActive() {
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
	switch tc.ToolKind() {
	case protocol.ToolKindExec:
		return "$ " + pick("cmd", "command")
	case protocol.ToolKindPatch:
		files := parsePatch(tc.Patch())
		names := make([]string, len(files))
		for i, f := range files {
			names[i] = f.path
		}
		add, del := patchCounts(files)
		return fmt.Sprintf("%s (+%d -%d)", strings.Join(names, ", "), add, del)
	case protocol.ToolKindRead, protocol.ToolKindList:
		return pick("path", "file_path", "dir_path")
	case protocol.ToolKindSearch:
		return pick("pattern")
	case protocol.ToolKindPlan:
		return pick("explanation")
	}
	return tc.Arguments
}

// toolOutcome is how a finished tool call ended, read from its exit code,
// its error flag and the approval answer it got: a call is a success only
// when nothing says otherwise.
type toolOutcome int

const (
	outcomeRunning toolOutcome = iota
	outcomeOK
	outcomeFailed
	outcomeDenied
	outcomeInterrupted
)

// userMessageRows is how many rows of a long message the transcript shows.
const userMessageRows = 12

// interruptedOutput starts the output of a call an interrupt cut off.
const interruptedOutput = "aborted: the turn was interrupted"

func (e *entry) outcome() toolOutcome {
	tc := e.tool
	switch {
	case e.running:
		return outcomeRunning
	case e.stopped || e.decision == protocol.DecisionAbort || strings.HasPrefix(tc.Output, interruptedOutput):
		return outcomeInterrupted
	case e.decision != "" && !e.decision.Approved() || strings.HasPrefix(tc.Output, "command rejected by user") || strings.HasPrefix(tc.Output, "patch rejected by user"):
		return outcomeDenied
	case tc.IsError || tc.ExitCode != nil && *tc.ExitCode != 0:
		return outcomeFailed
	}
	return outcomeOK
}

// toolMark is the mark and the word after the tool name for an outcome.
func (r *renderer) toolMark(e *entry) (mark, word string) {
	switch e.outcome() {
	case outcomeRunning:
		return r.th.running.Render(r.spin()), ""
	case outcomeDenied:
		return r.th.interrupted.Render("⊘"), r.th.interrupted.Render("denied")
	case outcomeInterrupted:
		return r.th.interrupted.Render("‖"), r.th.interrupted.Render("interrupted")
	case outcomeFailed:
		if c := e.tool.ExitCode; c != nil && *c != 0 {
			return r.th.failed.Render("✗"), r.th.failed.Render(fmt.Sprintf("exit %d", *c))
		}
		return r.th.failed.Render("✗"), r.th.failed.Render("failed")
	}
	return r.th.done.Render("✓"), ""
}

func (r *renderer) toolLines(e *entry, w int) []string {
	tc := e.tool
	mark, word := r.toolMark(e)
	name := displayToolName(tc.Name)
	room := max(10, w-lipglossWidth(name)-4)
	if word != "" {
		room = max(10, room-lipglossWidth(word)-1)
		word = " " + word
	}
	head := fmt.Sprintf("%s %s%s %s", mark, r.th.toolName.Render(name), word, r.th.toolArgs.Render(clip(toolSummary(tc), room)))
	if e.selected {
		// The highlight keeps the words, loses the colours.
		head = r.th.tableSel.Render(padRight(ansiStrip(head), w))
	}
	out := []string{padRight(head, w)}
	if e.running && e.progress != "" {
		out = append(out, padRight(r.th.dim.Render("  ⋯ "+clip(e.progress, max(10, w-4))), w))
	}
	if e.running {
		for _, l := range liveLines(e.liveTail, liveTailLines) {
			out = append(out, padRight(r.th.toolOut.Render("  "+clip(l, max(10, w-2))), w))
		}
	}
	if isPatchTool(tc) {
		if files := parsePatch(tc.Patch()); len(files) > 0 {
			out = append(out, r.patchLines(files, w, e.collapsed)...)
			if e.outcome() == outcomeOK {
				return out // the output only repeats the file list
			}
		}
	}
	if e.running || tc.Output == "" {
		return out
	}
	out = append(out, r.toolOutput(e, w)...)
	meta := ""
	if tc.ExitCode != nil {
		meta = fmt.Sprintf("exit %d · ", *tc.ExitCode)
	}
	if tc.DurationMS > 0 {
		meta += fmt.Sprintf("%.1fs · ", float64(tc.DurationMS)/1000)
	}
	if meta != "" {
		out = append(out, r.th.dim.Render("  "+strings.TrimSuffix(meta, " · ")))
	}
	return out
}

// collapsedLines is how many output lines a collapsed call shows.
const collapsedLines = 4

// toolOutput is a finished call's output: collapsed, a command shows its
// last lines (where a terminal leaves the eye: the result, the error) and
// other tools their first; expanded (ctrl+o), all of it.
func (r *renderer) toolOutput(e *entry, w int) []string {
	tc := e.tool
	output := tc.Output
	if isCommandTool(tc) {
		// Exit code and wall time are in the meta line; preview the output itself.
		if _, rest, ok := strings.Cut(output, "\nOutput:\n"); ok {
			output = rest
		}
	}
	outLines := strings.Split(strings.TrimRight(untrustedOutput(output), "\n"), "\n")
	style := r.th.toolOut
	if o := e.outcome(); o == outcomeFailed || o == outcomeDenied {
		style = r.th.toolErr
	}
	var out []string
	show := outLines
	hidden := ""
	if e.collapsed && len(outLines) > collapsedLines {
		n := len(outLines) - collapsedLines
		if isCommandTool(tc) {
			show = outLines[n:]
			hidden = "  … " + plural(n, "earlier line") + " (ctrl+o to expand)"
			out = append(out, r.th.dim.Render(clip(hidden, w)))
			hidden = ""
		} else {
			show = outLines[:collapsedLines]
			hidden = fmt.Sprintf("  … %d more lines (ctrl+o to expand)", n)
		}
	}
	for _, l := range show {
		if !e.collapsed {
			// Expanded: every character shows (search finds what it sees).
			for _, part := range wrap(strings.ReplaceAll(l, "\t", "    "), max(1, w-2)) {
				out = append(out, "  "+style.Render(part))
			}
			continue
		}
		out = append(out, "  "+style.Render(clip(l, w-2)))
	}
	if hidden != "" {
		out = append(out, r.th.dim.Render(clip(hidden, w)))
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

// transcriptLines renders the visible window of a thread's transcript.
// Following the bottom (the usual case) it renders entries from the last
// one back until the window is full, so the Markdown of a long resumed
// history is rendered only as it scrolls into view; scrolled, it needs
// every entry's height (each cached per entry and width).
func (r *renderer) transcriptLines(s *session, t *threadView, w, h int) []string {
	tail := r.tailLines(t, w)
	if t.follow {
		var blocks [][]string
		n := len(tail)
		for i := len(t.entries) - 1; i >= 0 && n < h; i-- {
			l := r.lines(s, t.entries[i], w)
			blocks = append(blocks, l)
			n += len(l)
		}
		out := make([]string, 0, n)
		for i := len(blocks) - 1; i >= 0; i-- {
			out = append(out, blocks[i]...)
		}
		out = append(out, tail...)
		return out[max(0, len(out)-h):]
	}
	var all []string
	for _, e := range t.entries {
		all = append(all, r.lines(s, e, w)...)
	}
	all = append(all, tail...)
	top := min(max(0, t.top), max(0, len(all)-h))
	return all[top:min(len(all), top+h)]
}

// streamingLines renders a message still streaming in the style of its
// final render: the finished blocks (up to the last blank line outside a
// code fence) go through Markdown, cached until another block finishes;
// so do the finished lines of the block being written (issue 35 item 25:
// `**explorer**` showed raw until the block ended), cached until another
// line ends; only the line being written shows as plain text, at the
// same margin.
func (r *renderer) streamingLines(e *entry, w int) []string {
	cut := e.stream.stableCut(e.text)
	var out []string
	if cut > 0 {
		if e.stableLen != cut || e.stableW != w {
			e.stableLines = r.proseLines(e.text[:cut], w)
			e.stableLen, e.stableW = cut, w
		}
		out = append(out, e.stableLines...)
	}
	tail := strings.TrimLeft(e.text[cut:], "\n")
	if tail == "" {
		return out
	}
	if n := len(out); n > 0 && strings.TrimSpace(ansiStrip(out[n-1])) != "" {
		out = append(out, "") // blocks are apart, as in the final render
	}
	// In an open code fence the lines are shown as they are (the code
	// is verbatim anyway; rendering a long block again per line would
	// cost a frame's time).
	if done := strings.LastIndexByte(tail, '\n') + 1; done > 0 && !e.stream.scanFenced {
		if end := len(e.text) - len(tail) + done; e.doneLen != end || e.doneW != w {
			e.doneLines = trimBlankEnd(r.proseLines(tail[:done], w))
			e.doneLen, e.doneW = end, w
		}
		out = append(out, e.doneLines...)
		tail = tail[done:]
	}
	if tail != "" {
		for _, l := range e.stream.tailRows(e.text, len(e.text)-len(tail), max(1, w-streamMargin)) {
			out = append(out, strings.Repeat(" ", streamMargin)+l)
		}
	}
	return out
}

// trimBlankEnd drops the blank rows a render ends with.
func trimBlankEnd(lines []string) []string {
	for len(lines) > 0 && strings.TrimSpace(ansiStrip(lines[len(lines)-1])) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// proseLines renders Markdown at width w with the prose margin, the same
// for a finished message and the finished blocks of a streaming one.
func (r *renderer) proseLines(text string, w int) []string {
	lines := strings.Split(r.md.render(text, w-streamMargin), "\n")
	for i, l := range lines {
		lines[i] = strings.Repeat(" ", streamMargin) + l
	}
	return lines
}

// streamMargin is the left margin of rendered prose.
const streamMargin = 2

// stableCut is where the finished blocks of a streaming message end: after
// its last blank line that is not inside a ``` fence (0: none yet).
func stableCut(text string) int {
	cut, fenced, pos := 0, false, 0
	for _, line := range strings.SplitAfter(text, "\n") {
		pos += len(line)
		if !strings.HasSuffix(line, "\n") {
			break // the line being written
		}
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "```"):
			fenced = !fenced
		case t == "" && !fenced:
			cut = pos
		}
	}
	return cut
}

// tailLines follow the entries: the working spinner and the messages
// still queued for the agent.
func (r *renderer) tailLines(t *threadView, w int) []string {
	var out []string
	if t.streaming == nil && t.status.Kind == protocol.StatusRunning {
		out = append(out, r.th.running.Render(r.spin())+r.th.dim.Render(" working… · esc to interrupt"))
	}
	for _, q := range t.queued {
		for i, l := range wrap(q, max(1, w-2)) {
			bar := "│ "
			if i == 0 {
				bar = "› "
			}
			out = append(out, r.th.dim.Render(bar+l))
		}
		out = append(out, r.th.dim.Render("  queued · delivered when the agent is free"), "")
	}
	return out
}

// totalLines is how tall a transcript is at width w.
func (r *renderer) totalLines(s *session, t *threadView, w int) int {
	n := len(r.tailLines(t, w))
	for _, e := range t.entries {
		n += len(r.lines(s, e, w))
	}
	return n
}
