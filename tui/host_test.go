package tui

import (
	"strings"
	"testing"
)

// An agent whose tools run on an SSH host says so in the tree, and the
// status line names the host with its directory when that agent is focused.
func TestHostAgentIsMarked(t *testing.T) {
	m, _ := newTestModel(t, 120, 30, newFake(rootInfo()))
	remote := child(workerID, "worker", "builder", "", 1, rootID)
	// Its local directory is this machine's; its commands run in the
	// host's workspace (issue 35 item 13: the status line showed the
	// local one after "box:").
	remote.Host, remote.Cwd, remote.HostCwd = "box", "/work/project", "/srv/work"
	m = feed(m, started(rootInfo(), 0), started(remote, 0))
	s := screen(m)
	if !strings.Contains(s, "@box") {
		t.Fatalf("the tree does not mark the host agent:\n%s", s)
	}
	if strings.Contains(s, "box:/srv/work") {
		t.Fatalf("the root's status line names the host's directory:\n%s", s)
	}
	m, _ = press(m, "tab")
	m, _ = press(m, "j")
	m, _ = press(m, "enter")
	if m.focused != workerID {
		t.Fatalf("focused %s", m.focused)
	}
	if s = screen(m); !strings.Contains(s, "box:/srv/work") || strings.Contains(s, "box:/work/project") {
		t.Fatalf("the status line does not name the host:\n%s", s)
	}
}
