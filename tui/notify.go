package tui

import (
	"os"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/gen2brain/beeep"
)

// Notification kinds (`[tui] notifications`).
const (
	NotifySubAgentComplete  = "sub-agent-complete"
	NotifyApprovalRequested = "approval-requested"
	NotifyTurnComplete      = "turn-complete"
)

// NotifyConfig is the `[tui]` notification configuration.
type NotifyConfig struct {
	// Kinds enabled; nil means all.
	Kinds map[string]bool
	// Method: auto | osc9 | bel | desktop.
	Method string
	// Condition: unfocused (default) | always.
	Condition string
}

// notifier decides whether and how to notify; the sequence goes through
// the renderer (tea.Raw), never straight to stdout.
type notifier struct {
	cfg     NotifyConfig
	focused bool
	getenv  func(string) string
	desktop func(title, msg string) error
}

func newNotifier(cfg NotifyConfig) *notifier {
	// Until the terminal reports focus, assume it is not focused: terminals
	// (and tmux without focus-events) that never report would otherwise
	// never notify.
	return &notifier{cfg: cfg, focused: false, getenv: os.Getenv, desktop: func(t, m string) error { return beeep.Notify(t, m, "") }}
}

func (n *notifier) enabled(kind string) bool {
	if n.cfg.Kinds == nil {
		return true
	}
	return n.cfg.Kinds[kind]
}

// method resolves `auto` from the terminal.
func (n *notifier) method() string {
	switch n.cfg.Method {
	case "osc9", "bel", "desktop":
		return n.cfg.Method
	}
	prog := strings.ToLower(n.getenv("TERM_PROGRAM"))
	term := strings.ToLower(n.getenv("TERM"))
	switch {
	case strings.Contains(prog, "iterm"), strings.Contains(prog, "wezterm"), strings.Contains(prog, "ghostty"),
		strings.Contains(term, "kitty"), strings.Contains(term, "ghostty"), strings.Contains(term, "wezterm"),
		n.getenv("KITTY_WINDOW_ID") != "", n.getenv("WEZTERM_PANE") != "":
		return "osc9"
	}
	return "bel"
}

// sequence is the escape sequence for a message (wrapped for tmux).
func (n *notifier) sequence(msg string) string {
	var seq string
	if n.method() == "osc9" {
		msg = strings.NewReplacer("\x07", "", "\x1b", "", "\n", " ").Replace(msg)
		seq = "\x1b]9;" + msg + "\x07"
	} else {
		seq = "\x07"
	}
	if n.getenv("TMUX") != "" && strings.HasPrefix(seq, "\x1b") {
		seq = "\x1bPtmux;" + strings.ReplaceAll(seq, "\x1b", "\x1b\x1b") + "\x1b\\"
	}
	return seq
}

// notify returns the command that delivers a notification, or nil when
// the kind is off or the terminal has focus under `unfocused`.
func (n *notifier) notify(kind, msg string) tea.Cmd {
	if !n.enabled(kind) {
		return nil
	}
	if n.cfg.Condition != "always" && n.focused {
		return nil
	}
	if n.method() == "desktop" {
		send := n.desktop
		return func() tea.Msg {
			_ = send("grove", msg)
			return nil
		}
	}
	return tea.Raw(n.sequence(msg))
}
