package tui

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

const pickerPage = 100

// picker is the resume picker: sessions newest first from the session
// index, loaded a page at a time, with a fuzzy filter and a preview.
type picker struct {
	home     string
	now      func() time.Time
	entries  []rollout.IndexEntry
	more     bool
	loading  bool
	err      error
	filter   string
	cursor   int
	closed   bool
	previews map[protocol.ThreadID][]string
	// messages counts each previewed session's messages (picker_preview.go).
	messages map[protocol.ThreadID]int
	// current is the session open now (marked; resuming it is a no-op).
	current protocol.ThreadID
	// search is the filter's state, kept between keys (picker_filter.go).
	search pickerSearch
	// gone marks sessions whose working directory was deleted.
	gone map[protocol.ThreadID]bool
	// held names the other grove that writes a session (picker_held.go).
	held map[protocol.ThreadID]holder
}

type pickerLoadedMsg struct {
	entries []rollout.IndexEntry
	more    bool
	offset  int
	// whole: entries is the whole list (the offset entries loaded before,
	// then the rest), not the entries after offset.
	whole bool
	err   error
	gone  map[protocol.ThreadID]bool
	held  map[protocol.ThreadID]holder
}

type pickerPreviewMsg struct {
	id       protocol.ThreadID
	lines    []string
	messages int
}

func newPicker(home string, now func() time.Time) *picker {
	return &picker{home: home, now: now, more: true, previews: map[protocol.ThreadID][]string{}, messages: map[protocol.ThreadID]int{}}
}

// load fetches the next page in a command (never the whole index).
func (p *picker) load() tea.Cmd {
	if p.loading || !p.more {
		return nil
	}
	p.loading = true
	home, offset := p.home, len(p.entries)
	if p.filter != "" {
		// A filter searches everything: the rest of the index in one pass,
		// not page after page (each page rescans the index from its end).
		// The rest is appended to a copy of what is loaded, so the whole
		// list is built once (no second copy of 100,000 entries here).
		loaded := slices.Clone(p.entries)
		return func() tea.Msg {
			e, err := rollout.AppendAllSessions(loaded, home, offset)
			return pickerLoadedMsg{entries: e, offset: offset, whole: true, err: err, held: holders(e)}
		}
	}
	return func() tea.Msg {
		e, more, err := rollout.ListSessions(home, offset, pickerPage)
		return pickerLoadedMsg{entries: e, more: more, offset: offset, err: err, gone: goneDirs(e), held: holders(e)}
	}
}

func (p *picker) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case pickerLoadedMsg:
		p.loading = false
		if msg.err != nil {
			p.err = msg.err
			return nil
		}
		if msg.offset == len(p.entries) {
			if msg.whole {
				p.entries = msg.entries
			} else {
				p.entries = append(p.entries, msg.entries...)
			}
			p.more = msg.more
			if p.gone == nil {
				p.gone = map[protocol.ThreadID]bool{}
			}
			for id := range msg.gone {
				p.gone[id] = true
			}
			if p.held == nil {
				p.held = map[protocol.ThreadID]holder{}
			}
			maps.Copy(p.held, msg.held)
		}
		if p.filter != "" && p.more {
			return p.load() // a filter searches everything: keep loading
		}
		return p.preview()
	case pickerPreviewMsg:
		p.previews[msg.id] = msg.lines
		p.messages[msg.id] = msg.messages
	}
	return nil
}

func title(e rollout.IndexEntry) string {
	if e.ThreadName != "" {
		return e.ThreadName
	}
	if e.FirstPrompt != "" {
		return e.FirstPrompt
	}
	// A session quit before its first message has no other title.
	return "(no message sent)"
}

// recencyBucket groups a time as today (0), this week (1), this month (2)
// or older (3).
func recencyBucket(now, t time.Time) int {
	switch d := now.Sub(t); {
	case d < 24*time.Hour:
		return 0
	case d < 7*24*time.Hour:
		return 1
	case d < 30*24*time.Hour:
		return 2
	}
	return 3
}

// key handles a key press; it returns the id to resume on Enter.
func (p *picker) key(msg tea.KeyPressMsg) (string, tea.Cmd) {
	list := p.visible()
	k := pickerKeys
	switch {
	case key.Matches(msg, k.Close):
		if p.filter != "" {
			p.filter, p.cursor = "", 0
			return "", p.preview()
		}
		p.closed = true
		return "", nil
	case key.Matches(msg, k.Resume):
		if p.cursor < len(list) {
			return string(list[p.cursor].ID), nil
		}
		return "", nil
	case key.Matches(msg, k.Up):
		p.cursor = max(0, p.cursor-1)
	case key.Matches(msg, k.Down):
		p.cursor = min(max(0, len(list)-1), p.cursor+1)
	case key.Matches(msg, k.PageUp):
		p.cursor = max(0, p.cursor-10)
	case key.Matches(msg, k.PageDown):
		p.cursor = min(max(0, len(list)-1), p.cursor+10)
	case key.Matches(msg, k.Back):
		if p.filter != "" {
			p.filter = dropLastRune(p.filter)
			p.cursor = 0
		}
	default:
		if t := msg.Text; t != "" && msg.Mod == 0 || t != "" && msg.String() == t {
			p.filter += t
			p.cursor = 0
			if p.more {
				return "", p.load()
			}
		}
	}
	var cmds []tea.Cmd
	if p.filter == "" && p.cursor > len(p.entries)-20 {
		cmds = append(cmds, p.load())
	}
	cmds = append(cmds, p.preview())
	return "", tea.Batch(cmds...)
}

// footer is the picker's own key line (issue 35 item 26: it showed the
// main screen's keys, which do nothing here).
func (p *picker) footer(r *renderer, w int) string {
	keys := pickerKeys.footer(p.filter != "")
	var parts []string
	for _, k := range keys {
		parts = append(parts, r.th.key.Render(k.Help().Key)+r.th.dim.Render(" "+k.Help().Desc))
	}
	line := " "
	for i, part := range parts {
		sep := ""
		if i > 0 {
			sep = r.th.dim.Render(" · ")
		}
		if lipglossWidth(line+sep+part) > w {
			break // the first keys matter most
		}
		line += sep + part
	}
	return padRight(line, w)
}

// Ago renders how long ago something happened ("3m ago").
func Ago(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}

func (p *picker) view(r *renderer, w, h int) []string {
	list := p.visible()
	head := r.th.paneTitle.Render("Resume a session") + r.th.dim.Render("  "+plural(len(p.entries), "session"))
	if p.more {
		head += r.th.dim.Render("+")
	}
	if p.filter != "" {
		n := fmt.Sprintf("%d matches", len(list))
		if len(list) == 1 {
			n = "1 match"
		}
		head += r.th.dim.Render("  · " + n)
	}
	lines := []string{head, r.th.key.Render("› ") + p.filter + "▏", ""}
	if p.err != nil {
		return append(lines, r.th.errStyle.Render(p.err.Error()))
	}
	if len(list) == 0 {
		if p.loading {
			return append(lines, r.th.dim.Render("loading…"))
		}
		return append(lines, r.th.dim.Render("no sessions match"))
	}
	listW := w
	previewW := 0
	if w >= 100 {
		previewW = w * 2 / 5
		listW = w - previewW - 3
	}
	rows := h - len(lines)
	start := max(0, p.cursor-rows/2)
	left := p.rows(r, list[start:min(len(list), start+max(0, rows))], start, listW)
	if previewW == 0 {
		return append(lines, left...)
	}
	var right []string
	if len(list) > p.cursor {
		e := list[p.cursor]
		right = append(right, r.th.cardTitle.Render(clip(title(e), previewW)), r.th.dim.Render(clip(string(e.ID), previewW)),
			r.th.dim.Render(clip(p.previewMeta(e), previewW)), "")
		for _, l := range p.previews[e.ID] {
			right = append(right, clip(l, previewW))
		}
	}
	sep := make([]string, rows)
	for i := range sep {
		sep[i] = r.th.paneBorder.Render(" │ ")
	}
	return append(lines, joinColumns(fit(left, listW, rows), sep, fit(right, previewW, rows))...)
}
