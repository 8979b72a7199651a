package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/grovecli/grove/protocol"
)

// The issue-26 golden screens, each at 80x24 and 120x40 (failed and denied
// commands: TestGoldenFailedAndDenied; resumed equal to live:
// TestResumedScreenEqualsLive).
var goldenSizes = [][2]int{{80, 24}, {120, 40}}

func TestGoldenWelcome(t *testing.T) {
	for _, size := range goldenSizes {
		fb := newFake(rootInfo())
		fb.info.SandboxMode, fb.info.ApprovalPolicy = protocol.SandboxWorkspaceWrite, protocol.ApprovalOnRequest
		m, _ := newTestModel(t, size[0], size[1], fb)
		s := screen(m)
		checkSize(t, s, size[0], size[1])
		golden(t, "welcome_"+sizeName(size), s)
		for _, want := range []string{"gpt-test · mock", "workspace-write", "on-request", "/work/project", "? help"} {
			if !strings.Contains(s, want) {
				t.Errorf("%v: welcome lacks %q:\n%s", size, want, s)
			}
		}
		m = feed(m, userMsg(rootID, "hello"))
		if strings.Contains(screen(m), "Welcome to grove") {
			t.Errorf("the welcome card outlives the first message")
		}
	}
}

func TestGoldenEscalationModal(t *testing.T) {
	for _, size := range goldenSizes {
		m, c := newTestModel(t, size[0], size[1], newFake(rootInfo()))
		m = feed(m, treeScenario()...)
		m = feed(m, escalationApproval("ap1", 30*time.Second, "go mod download && go test ./pkg/when/... -run Leap -count=1"))
		c.t = c.t.Add(pause) // read after its input grace
		s := screen(m)
		checkSize(t, s, size[0], size[1])
		golden(t, "escalation_"+sizeName(size), s)
		for _, want := range []string{"outside the sandbox", "$ go mod download", "cwd: /work/project", "asked by: root", "needs the network"} {
			if !strings.Contains(s, want) {
				t.Errorf("%v: modal lacks %q:\n%s", size, want, s)
			}
		}
	}
}

// fiftyAgents is a root with fifty agents: ten leads with four workers
// each, in every state.
func fiftyAgents() []protocol.Event {
	var evs []protocol.Event
	states := []protocol.AgentStatus{protocol.Running(), protocol.Completed("done", true), protocol.Errored("HTTP 500"), protocol.Interrupted(), protocol.PendingInit()}
	n := 0
	for l := 0; l < 10; l++ {
		n++
		lead := protocol.ThreadID(fmt.Sprintf("00000000-0000-7000-8000-%012d", n))
		evs = append(evs, started(child(lead, "lead", fmt.Sprintf("l%d", l), fmt.Sprintf("area %d", l), 1, rootID), time.Second),
			status(lead, protocol.Running(), 2*time.Second))
		for w := 0; w < 4; w++ {
			n++
			id := protocol.ThreadID(fmt.Sprintf("00000000-0000-7000-8000-%012d", n))
			evs = append(evs, started(child(id, "worker", fmt.Sprintf("w%d%d", l, w), fmt.Sprintf("part %d of area %d", w, l), 2, lead), 3*time.Second),
				status(id, states[(l+w)%len(states)], 4*time.Second))
		}
	}
	return append(evs, status(rootID, protocol.Running(), time.Second))
}

func TestGoldenFiftyAgents(t *testing.T) {
	for _, size := range goldenSizes {
		m, _ := newTestModel(t, size[0], size[1], newFake(rootInfo()))
		m = feed(m, fiftyAgents()...)
		m, _ = press(m, "tab")
		for range 25 {
			m, _ = press(m, "down")
		}
		s := screen(m)
		checkSize(t, s, size[0], size[1])
		golden(t, "tree50_"+sizeName(size), s)
		if !strings.Contains(s, "agents 51") {
			t.Errorf("%v: no count:\n%s", size, s)
		}
		// The selected agent is on screen.
		sel := m.sess.threads[m.sess.treeOrder()[m.selected]]
		if !strings.Contains(s, sel.name()) {
			t.Errorf("%v: selection %s off screen:\n%s", size, sel.name(), s)
		}
	}
}

// TestHelpScrolls: at 80x24 the help does not fit; it scrolls to its end
// instead of being cut, and another key closes it.
func TestHelpScrolls(t *testing.T) {
	m, _ := newTestModel(t, 80, 24, newFake(rootInfo()))
	m, _ = press(m, "?")
	if s := screen(m); !strings.Contains(s, "pgup/pgdn scroll") || strings.Contains(s, "/quit") {
		t.Fatalf("help does not say it scrolls:\n%s", s)
	}
	for range 5 {
		m, _ = press(m, "pgdown")
	}
	if s := screen(m); !strings.Contains(s, "/quit") || !strings.Contains(s, "press any key to close") {
		t.Fatalf("the end of the help is unreachable:\n%s", s)
	}
	m, _ = press(m, "x")
	if m.help {
		t.Fatal("a key did not close the help")
	}
}

// TestAgentsTableShowsTokenBreakdown: Ctrl+T shows the selected agent's
// tokens (input, cached, output, reasoning) and the session's.
func TestAgentsTableShowsTokenBreakdown(t *testing.T) {
	m, _ := newTestModel(t, 120, 30, newFake(rootInfo()))
	m = feed(m, treeScenario()...)
	u := ev(protocol.EventTokenUsage, rootID, 5*time.Second)
	u.Usage = &protocol.TokenUsage{InputTokens: 100, TotalTokens: 100}
	u.TotalUsage = &protocol.TokenUsage{InputTokens: 12000, CachedInputTokens: 8000, OutputTokens: 1500, ReasoningTokens: 700, TotalTokens: 13500}
	c := ev(protocol.EventTokenUsage, explorerID, 6*time.Second)
	c.Usage = u.Usage
	c.TotalUsage = &protocol.TokenUsage{InputTokens: 3000, OutputTokens: 500, TotalTokens: 3500}
	m = feed(m, u, c)
	m, _ = press(m, "ctrl+t")
	s := screen(m)
	for _, want := range []string{"root in 12.0k (cached 8.0k) · out 1.5k (reasoning 700)", "session in 15.0k (cached 8.0k) · out 2.0k (reasoning 700)"} {
		if !strings.Contains(s, want) {
			t.Errorf("agents table lacks %q:\n%s", want, s)
		}
	}
}

// TestDeepTreeKeepsLabels: at 80 columns an agent twelve levels deep
// still shows its label (the guides are squeezed, not the name).
func TestDeepTreeKeepsLabels(t *testing.T) {
	m, _ := newTestModel(t, 80, 30, newFake(rootInfo()))
	parent := rootID
	for d := 1; d <= 12; d++ {
		id := protocol.ThreadID(fmt.Sprintf("00000000-0000-7000-8000-%012d", d))
		m = feed(m, started(child(id, "worker", fmt.Sprintf("d%02d", d), "", d, parent), time.Second))
		parent = id
	}
	s := screen(m)
	checkSize(t, s, 80, 30)
	if !strings.Contains(s, "d12 (") || !strings.Contains(s, "…") {
		t.Fatalf("deep label lost:\n%s", s)
	}
}
