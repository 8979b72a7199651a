package tui

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"github.com/gen2brain/beeep"

	"github.com/grovecli/grove/protocol"
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
	// noPassthrough: inside tmux with allow-passthrough off, OSC 9 would go
	// nowhere, so the bell is used instead.
	noPassthrough bool
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
	if n.noPassthrough {
		return "bel"
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

// wantsOSC9 reports whether, passthrough aside, OSC 9 would be used.
func (n *notifier) wantsOSC9() bool {
	saved := n.noPassthrough
	n.noPassthrough = false
	defer func() { n.noPassthrough = saved }()
	return n.method() == "osc9"
}

// passthroughMsg reports tmux's allow-passthrough setting.
type passthroughMsg struct{ off bool }

// checkPassthrough asks tmux (only when running inside it and OSC 9 would
// be used) whether escape sequences may pass through to the terminal.
func (n *notifier) checkPassthrough() tea.Cmd {
	if n.getenv("TMUX") == "" || !n.wantsOSC9() {
		return nil
	}
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, "tmux", "show-options", "-gqv", "allow-passthrough").Output()
		if err != nil {
			return nil // cannot tell: keep OSC 9
		}
		v := strings.TrimSpace(string(out))
		return passthroughMsg{off: v != "on" && v != "all"}
	}
}

var (
	uuidPattern   = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)
	mdLinkPattern = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	mdPrefix      = regexp.MustCompile(`^\s*(#{1,6}\s+|>\s*|[-*+]\s+|\d+[.)]\s+)`)
	mdEmphasis    = strings.NewReplacer("**", "", "__", "", "`", "", "~~", "")
)

// plainSummary turns Markdown into one plain line for a notification: the
// first line with text, without heading marks, emphasis or link targets,
// thread ids shortened, at most n columns.
func plainSummary(s string, n int) string {
	line := ""
	for l := range strings.Lines(s) {
		// The summary shows n columns: a long line (a whole answer without
		// a newline) is cut first, so the work does not grow with it.
		l = strings.TrimSpace(mdPrefix.ReplaceAllString(cutBytes(l, summaryBytes(n)), ""))
		if l != "" && strings.Trim(l, "-=*_ ") != "" {
			line = l
			break
		}
	}
	line = mdLinkPattern.ReplaceAllString(line, "$1")
	line = mdEmphasis.Replace(line)
	line = uuidPattern.ReplaceAllStringFunc(line, func(id string) string { return protocol.ThreadID(id).Short() })
	return clip(line, n)
}

// summaryBytes is how much of a line plainSummary reads for n columns:
// room for links and ids that shrink when rewritten.
func summaryBytes(n int) int { return max(256, 4*n) }

// cutBytes shortens s to at most n bytes, on a character boundary.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// childNotice is the notification for a sub-agent's final status; none for
// an agent that was closed (by its parent or on quit): it did not finish.
func childNotice(label string, st protocol.AgentStatus) (string, bool) {
	switch st.Kind {
	case protocol.StatusCompleted:
		msg := "grove: " + label + " finished"
		if sum := plainSummary(st.Message, 160); sum != "" {
			msg += ": " + sum
		}
		return msg, true
	case protocol.StatusErrored:
		return "grove: " + label + " failed: " + plainSummary(st.Message, 160), true
	}
	return "", false
}
