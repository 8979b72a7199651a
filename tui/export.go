package tui

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// transcriptText is a thread's transcript as plain Markdown: what was
// said, each tool call with its full output, each collaboration result.
func transcriptText(s *session, t *threadView) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s (%s)\n\n", roleLabel(t.info), t.info.ID)
	for _, e := range t.entries {
		switch e.kind {
		case entryUser:
			b.WriteString("> " + strings.ReplaceAll(e.text, "\n", "\n> ") + "\n\n")
		case entryAssistant:
			b.WriteString(e.text + "\n\n")
		case entryTool, entryCard:
			if e.tool == nil {
				continue
			}
			fmt.Fprintf(&b, "**%s** `%s`\n", e.tool.Name, strings.ReplaceAll(toolSummary(e.tool), "`", "'"))
			if out := strings.TrimRight(e.tool.Output, "\n"); out != "" {
				b.WriteString("\n```\n" + strings.ReplaceAll(out, "```", "'''") + "\n```\n")
			}
			for _, id := range e.cardIDs {
				if st, ok := e.result.statuses[id]; ok {
					label := string(id.Short())
					if c := s.threads[id]; c != nil {
						label = roleLabel(c.info)
					}
					fmt.Fprintf(&b, "- %s: %s\n", label, st.String())
				}
			}
			b.WriteString("\n")
		case entryPlan:
			for _, st := range e.plan.Steps {
				fmt.Fprintf(&b, "- [%s] %s\n", st.Status, st.Step)
			}
			b.WriteString("\n")
		case entryError:
			b.WriteString("**error:** " + e.text + "\n\n")
		case entryWarning, entryInfo:
			b.WriteString("_" + e.text + "_\n\n")
		}
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// exportPath resolves where /export writes: the argument (relative to the
// session's directory) or a name from the agent and session.
func exportPath(arg, cwd string, t *threadView) string {
	if arg == "" {
		arg = fmt.Sprintf("grove-%s-%s.md", strings.ReplaceAll(roleLabel(t.info), "/", "-"), t.info.ID.Short())
	}
	if strings.HasPrefix(arg, "~/") {
		if h, err := os.UserHomeDir(); err == nil {
			arg = filepath.Join(h, arg[2:])
		}
	}
	if !filepath.IsAbs(arg) {
		arg = filepath.Join(cwd, arg)
	}
	return filepath.Clean(arg)
}

// exportCmd writes the focused transcript to a new file (never over an
// existing one) off the UI loop.
func (m Model) exportCmd(arg string) tea.Cmd {
	t := m.sess.threads[m.focused]
	if t == nil {
		return func() tea.Msg { return flashMsg("nothing to export") }
	}
	path := exportPath(arg, m.info.Cwd, t)
	text := transcriptText(m.sess, t)
	return func() tea.Msg {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, os.ErrExist) {
			return flashMsg("export: " + path + " exists · /export <another path>")
		}
		if err != nil {
			return flashMsg("export: " + err.Error())
		}
		_, werr := f.WriteString(text)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return flashMsg(fmt.Sprintf("export %s: %v", path, werr))
		}
		return flashMsg("transcript written to " + path)
	}
}
