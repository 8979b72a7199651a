package tui

import "github.com/grovecli/grove/protocol"

// hostBadge marks an agent whose tools run on a [hosts.<name>] machine: a
// command it runs there is not on this one, and the user should see that.
func hostBadge(info protocol.ThreadInfo) string {
	if info.Host == "" {
		return ""
	}
	return " @" + info.Host
}

// location is where the focused agent works, as the status line shows it:
// `box:/srv/work` on a host (its path is the host's, so it is not
// shortened with this machine's home), the local directory otherwise.
func (m Model) location() string {
	t := m.sess.threads[m.focused]
	if t == nil || t.info.Host == "" {
		return shortenHome(m.cwd())
	}
	if t.info.HostCwd != "" {
		return t.info.Host + ":" + shortenPath(t.info.HostCwd) // where its pwd is
	}
	return t.info.Host + ":" + shortenPath(m.cwd())
}
