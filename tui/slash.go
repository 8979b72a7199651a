package tui

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"

	"github.com/grovecli/grove/core/app"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

// slashCommands are the composer's commands; args marks those that take
// an argument (choosing them from the menu waits for it).
var slashCommands = []struct {
	name, help string
	args       bool
}{
	{"/resume", "resume a past session: /resume [id]", false},
	{"/new", "start a new session", false},
	{"/agents", "table of every agent (ctrl+t)", false},
	{"/diff", "review the patches of this turn: accept / revert hunks (ctrl+d)", false},
	{"/model", "set the model: /model <name> [effort]", true},
	{"/note", "set the focused agent's note: /note <text>", true},
	{"/export", "write the focused transcript to a file: /export [path]", false},
	{"/compact", "summarise the history to free context: /compact [focus]", false},
	{"/mcp", "MCP servers: state, tools, errors", false},
	{"/approvals", "approval mode: /approvals [mode] (shift+tab)", false},
	{"/status", "model, approvals, tokens and context now", false},
	{"/ps", "running sessions (commands left running): /ps, /ps kill <id>", false},
	{"/help", "show keys and commands", false},
	{"/quit", "quit grove", false},
}

// slashMenu lists the commands matching what is typed, while a command
// name is being typed (a slash and no space yet).
func (m Model) slashMenu() []int {
	v := m.composer.Value()
	if !strings.HasPrefix(v, "/") || strings.ContainsAny(v, " \n") || m.search != nil {
		return nil
	}
	var out []int
	for i, c := range slashCommands {
		if strings.HasPrefix(c.name, v) {
			out = append(out, i)
		}
	}
	return out
}

// slashMenuKey handles keys while the menu shows: up/down choose, tab
// completes the chosen command, enter runs it (or completes it when it
// needs an argument). ok is false for keys the composer should get.
func (m Model) slashMenuKey(k string) (Model, tea.Cmd, bool) {
	menu := m.slashMenu()
	if len(menu) == 0 {
		return m, nil, false
	}
	sel := min(m.slashSel, len(menu)-1)
	c := slashCommands[menu[sel]]
	switch {
	case is(k, menuKeys.Up):
		m.slashSel = (sel + len(menu) - 1) % len(menu)
	case is(k, menuKeys.Down):
		m.slashSel = (sel + 1) % len(menu)
	case is(k, menuKeys.Complete):
		m.composer.SetValue(c.name + " ")
		m.composer.CursorEnd()
	case is(k, menuKeys.Run):
		if c.args && m.composer.Value() != c.name {
			m.composer.SetValue(c.name + " ")
			m.composer.CursorEnd()
			break
		}
		m.composer.SetValue(c.name)
		mm, cmd := m.send()
		return mm.(Model), cmd, true
	default:
		return m, nil, false
	}
	return m, nil, true
}

// slashMenuLines renders the menu (above the composer).
func (m Model) slashMenuLines() []string {
	menu := m.slashMenu()
	sel := min(m.slashSel, len(menu)-1)
	// A short window shows the rows around the selection.
	rows := m.slashRows()
	first := min(max(0, sel-rows+1), max(0, len(menu)-rows))
	var out []string
	for i, ci := range menu {
		if i < first || i >= first+rows {
			continue
		}
		c := slashCommands[ci]
		line := fmt.Sprintf("  %-9s %s", c.name, c.help)
		if i == sel {
			out = append(out, m.th.tableSel.Render(padRight(line, m.w)))
		} else {
			out = append(out, padRight(m.th.key.Render(fmt.Sprintf("  %-9s", c.name))+" "+m.th.dim.Render(c.help), m.w))
		}
	}
	return out
}

func completeSlash(prefix string) string {
	var hits []string
	for _, c := range slashCommands {
		if strings.HasPrefix(c.name, prefix) {
			hits = append(hits, c.name)
		}
	}
	if len(hits) == 1 {
		return hits[0] + " "
	}
	return ""
}

// modelsMsg brings the provider's model list (fetched off the UI loop) and
// what the user was doing when it was asked for.
type modelsMsg struct {
	names []string
	then  modelsAction
}

// modelsAction is the command waiting for the model list.
type modelsAction struct {
	kind   string // "complete", "list" or "set"
	line   string // the composer when completion was asked
	name   string
	effort string
}

// loadModels fetches the list once; later calls answer from the cache.
func (m *Model) loadModels(then modelsAction) tea.Cmd {
	if m.modelsLoaded || m.opts.Models == nil {
		names := m.models
		return func() tea.Msg { return modelsMsg{names: names, then: then} }
	}
	list := m.opts.Models
	return func() tea.Msg { return modelsMsg{names: list(), then: then} }
}

// afterModels finishes the command that waited for the model list.
func (m *Model) afterModels(msg modelsMsg) tea.Cmd {
	switch a := msg.then; a.kind {
	case "complete":
		if m.composer.Value() == a.line { // the user has not typed on
			m.completeArg(a.line, msg.names)
		}
	case "list":
		m.flash = "model: " + m.info.Model + " · usage: /model <name> [effort]"
		if len(msg.names) > 0 {
			m.flash += " · available: " + strings.Join(msg.names, ", ")
		}
	case "set":
		return m.setModel(a.name, a.effort, msg.names)
	}
	return nil
}

// setModel switches the focused agent's model. A name missing from the
// provider's list is refused (with the close matches); with no list to
// check against it is set with a warning.
func (m *Model) setModel(name, effort string, names []string) tea.Cmd {
	switch {
	case len(names) == 0:
		m.flash = "model set to " + name + " (the provider lists no models: not checked)"
	case !contains(names, name):
		m.flash = fmt.Sprintf("unknown model %q", name)
		if near := matching(names, name); len(near) > 0 {
			m.flash += " · did you mean " + strings.Join(near, ", ")
		} else {
			m.flash += " · /model lists the provider's models"
		}
		return nil
	default:
		m.flash = "model set to " + name
	}
	m.info.Model = name
	return m.configure(m.focused, protocol.TurnOverrides{Model: name, ReasoningEffort: effort})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// matching lists the names containing s (case-insensitive), at most five.
func matching(names []string, s string) []string {
	var out []string
	ls := strings.ToLower(s)
	for _, n := range names {
		if strings.Contains(strings.ToLower(n), ls) || strings.Contains(ls, strings.ToLower(n)) {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out[:min(5, len(out))]
}

// completeSlashLine is tab in a composer that holds a slash command: it
// completes the command name, then its argument.
func (m Model) completeSlashLine() (tea.Model, tea.Cmd) {
	v := m.composer.Value()
	if !strings.Contains(v, " ") {
		if c := completeSlash(v); c != "" {
			m.composer.SetValue(c)
			m.composer.CursorEnd()
		}
		return m, nil
	}
	cmd, _, _ := strings.Cut(v, " ")
	switch cmd {
	case "/resume":
		home := m.opts.Home
		if m.backend != nil {
			home = m.info.Home
		}
		return m, func() tea.Msg {
			entries, _, err := rollout.ListSessions(home, 0, 200)
			if err != nil {
				return flashMsg("sessions: " + err.Error())
			}
			ids := make([]string, len(entries))
			for i, e := range entries {
				ids[i] = e.ID.Short() // as the header and picker show them
			}
			return sessionsMsg{line: v, ids: ids}
		}
	case "/model":
		if !m.modelsLoaded && m.opts.Models != nil {
			m.flash = "loading the provider's models…"
			return m, m.loadModels(modelsAction{kind: "complete", line: v})
		}
		m.completeArg(v, m.models)
	}
	return m, nil
}

// completeArg completes the argument of line from candidates: one match
// fills it in; several fill their common prefix and are listed.
func (m *Model) completeArg(line string, candidates []string) {
	cmd, arg, _ := strings.Cut(line, " ")
	arg = strings.TrimLeft(arg, " ")
	if strings.Contains(arg, " ") {
		return // only the first argument completes
	}
	var hits []string
	for _, c := range candidates {
		if strings.HasPrefix(c, arg) {
			hits = append(hits, c)
		}
	}
	switch len(hits) {
	case 0:
		if len(candidates) == 0 {
			m.flash = "nothing to complete " + cmd + " with"
		} else {
			m.flash = "nothing starts with " + arg
		}
		return
	case 1:
		m.composer.SetValue(cmd + " " + hits[0] + " ")
	default:
		sort.Strings(hits)
		m.composer.SetValue(cmd + " " + commonPrefix(hits))
		m.flash = strings.Join(hits, "  ")
	}
	m.composer.CursorEnd()
}

func commonPrefix(list []string) string {
	p := list[0]
	for _, s := range list[1:] {
		for !strings.HasPrefix(s, p) {
			_, size := utf8.DecodeLastRuneInString(p)
			p = p[:len(p)-size]
		}
	}
	return p
}

// flashCompacting starts the flash shown while /compact runs.
const flashCompacting = "compacting"

func (m Model) slash(text string) (tea.Model, tea.Cmd) {
	cmd, arg, _ := strings.Cut(text, " ")
	arg = strings.TrimSpace(arg)
	switch cmd {
	case "/quit", "/exit":
		m.quitting = true
		return m, tea.Batch(m.submit(protocol.Op{Type: protocol.OpShutdown}), tea.Quit)
	case "/help":
		m.help = true
	case "/agents":
		m.overlay = newAgentsOverlay()
	case "/diff":
		m.openReview()
	case "/resume":
		home := m.opts.Home
		if m.backend != nil {
			home = m.info.Home
		}
		if arg != "" {
			return m, m.resumeByID(home, arg)
		}
		m.picker = newPicker(home, m.now)
		m.picker.current = m.sess.root
		return m, m.picker.load()
	case "/new":
		if m.opts.NewSession == nil {
			m.flash = "/new is not available here"
			return m, nil
		}
		f := m.opts.NewSession
		return m, func() tea.Msg {
			b, err := f()
			if err == nil && b == nil {
				err = fmt.Errorf("the new session did not open")
			}
			if err != nil {
				return backendMsg{err: err}
			}
			return backendMsg{o: prepare(b)}
		}
	case "/export":
		return m, m.exportCmd(arg)
	case "/note":
		return m, m.submit(protocol.Op{Type: protocol.OpSetNote, ThreadID: m.focused, Note: arg})
	case "/compact":
		m.flash = flashCompacting + " the conversation…"
		return m, m.submit(protocol.Op{Type: protocol.OpCompact, ThreadID: m.focused, Text: arg})
	case "/model":
		if arg == "" {
			m.flash = "model: " + m.info.Model + " · usage: /model <name> [effort]"
			if m.opts.Models == nil {
				return m, nil
			}
			return m, m.loadModels(modelsAction{kind: "list"})
		}
		name, effort, _ := strings.Cut(arg, " ")
		effort = strings.TrimSpace(effort)
		// The session core judges the effort as every front end's
		// (issue 35 item 20: "ludicrous" was taken).
		if err := app.CheckSettingsChange(protocol.TurnOverrides{Model: name, ReasoningEffort: effort}); err != nil {
			m.flash = err.Error()
			return m, nil
		}
		return m, m.loadModels(modelsAction{kind: "set", name: name, effort: effort})
	case "/approvals":
		return m, m.approvalsCommand(arg)
	case "/status":
		m.statusCommand()
	case "/ps":
		return m.ps(arg)
	case "/mcp":
		if m.opts.MCPServers == nil {
			m.flash = "no MCP servers configured ([mcp_servers] in config.toml, or .mcp.json)"
			return m, nil
		}
		list := m.opts.MCPServers
		return m, func() tea.Msg {
			lines := list()
			if len(lines) == 0 {
				return flashMsg("no MCP servers configured ([mcp_servers] in config.toml, or .mcp.json)")
			}
			return flashMsg("MCP: " + strings.Join(lines, " · "))
		}
	default:
		m.flash = "unknown command " + cmd + " · /help lists commands"
	}
	return m, nil
}

// sessionsMsg brings session ids for completing /resume.
type sessionsMsg struct {
	line string
	ids  []string
}

// resumeFoundMsg: /resume <id> found a session to open.
type resumeFoundMsg struct{ id protocol.ThreadID }

// resumeByID looks the id (or a prefix or suffix of it) up in the session
// index off the UI loop.
func (m Model) resumeByID(home, arg string) tea.Cmd {
	return func() tea.Msg {
		e, err := rollout.FindSession(home, arg)
		if err != nil {
			return flashMsg(err.Error())
		}
		return resumeFoundMsg{id: e.ID}
	}
}

// openSession opens a session by id, unless it is the one already open
// (a second engine would write into the same rollout).
func (m *Model) openSession(id protocol.ThreadID) tea.Cmd {
	if m.backend != nil && id == m.sess.root {
		m.flash = "session " + id.Short() + " is already open"
		return nil
	}
	open := m.opts.OpenSession
	return func() tea.Msg {
		if open == nil {
			return backendMsg{err: fmt.Errorf("resuming is not available here")}
		}
		b, err := open(string(id))
		if err == nil && b == nil {
			err = fmt.Errorf("session %s did not open", id)
		}
		if err != nil {
			return backendMsg{err: err}
		}
		return backendMsg{o: prepare(b)}
	}
}
