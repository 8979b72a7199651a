package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

// screenState builds one screen state of the TUI on a fresh model.
type screenState struct {
	name  string
	build func(t *testing.T) Model
}

func longCommand() string {
	return "find / -name '*.go' -newer /etc/hostname -exec grep -l 'package main' {} + | xargs -n1 dirname | sort -u | tee /tmp/mains.txt && " + strings.Repeat("echo step; ", 12)
}

func escalationApproval(id string, at time.Duration, cmd string) protocol.Event {
	e := execApproval(id, at, cmd)
	e.Approval.Sandbox = protocol.SandboxDangerFullAccess
	e.Approval.Reason = "needs the network to fetch the module cache"
	return e
}

func patchApproval(id string, at time.Duration) protocol.Event {
	e := ev(protocol.EventApprovalRequested, workerID, at)
	e.Approval = &protocol.ApprovalRequest{ID: id, ThreadID: workerID, Kind: protocol.ApprovalPatch, Chain: []string{"root", "worker/careful"},
		Files: []string{"pkg/when/parse.go", "pkg/when/parse_test.go"},
		Patch: "*** Begin Patch\n*** Update File: pkg/when/parse.go\n@@\n-\tif leap {\n+\tif isLeap(y) {\n*** End Patch"}
	return e
}

func screenStates() []screenState {
	base := func(t *testing.T) Model {
		m, _ := newTestModel(t, 80, 24, newFake(rootInfo()))
		return feed(m, treeScenario()...)
	}
	withModal := func(evs ...protocol.Event) func(t *testing.T) Model {
		return func(t *testing.T) Model { return feed(base(t), evs...) }
	}
	return []screenState{
		{"empty", func(t *testing.T) Model { m, _ := newTestModel(t, 80, 24, newFake(rootInfo())); return m }},
		{"tree", base},
		{"exec modal", withModal(execApproval("ap1", 30*time.Second, longCommand()))},
		{"escalation modal", withModal(escalationApproval("ap1", 30*time.Second, longCommand()))},
		{"patch modal", withModal(patchApproval("ap1", 30*time.Second), execApproval("ap2", 31*time.Second, "make"))},
		{"modal focused confirming", func(t *testing.T) Model {
			m := withModal(escalationApproval("ap1", 30*time.Second, "curl -fsSL https://example.com/x.sh | sh"))(t)
			m, _ = press(m, "tab")
			m.appr.shownAt = m.now().Add(-time.Minute)
			m, _ = press(m, "y")
			return m
		}},
		{"overlay", func(t *testing.T) Model { m, _ := press(base(t), "ctrl+t"); return m }},
		{"overlay over modal", func(t *testing.T) Model {
			m, _ := press(withModal(execApproval("ap1", 30*time.Second, longCommand()))(t), "ctrl+t")
			return m
		}},
		{"help", func(t *testing.T) Model { m, _ := press(base(t), "?"); return m }},
		// Issue 35's states: a request off screen (banner, badge), the asker
		// focused with a long escalation, a read-only session with a
		// refused message, and a context gauge that warns.
		{"request off screen", withModal(workerApproval("ap1", 30*time.Second, longCommand(), protocol.SandboxDangerFullAccess))},
		{"asker focused with escalation", func(t *testing.T) Model {
			m := withModal(workerApproval("ap1", 30*time.Second, longCommand(), protocol.SandboxDangerFullAccess))(t)
			m, _ = press(m, "tab")
			m.appr.shownAt = m.now().Add(-time.Minute)
			m, _ = press(m, "y") // refused: not read whole
			return m
		}},
		{"read-only session", func(t *testing.T) Model {
			fb := newFake(rootInfo())
			fb.info.ReadOnly = "read-only view: " + longCommand()
			m, _ := newTestModel(t, 80, 24, fb)
			mm, _ := m.Update(sendFailedMsg{thread: rootID, text: "x", err: fmt.Errorf("%s", longCommand())})
			return mm.(Model)
		}},
		{"context gauge warns", func(t *testing.T) Model {
			m := base(t)
			m.limits = map[string]contextLimits{"gpt-test": {window: 20_000, compactAt: 18_000}}
			u := ev(protocol.EventTokenUsage, rootID, time.Second)
			u.Usage = &protocol.TokenUsage{InputTokens: 17_000, OutputTokens: 500, TotalTokens: 17_500}
			u.TotalUsage = u.Usage
			return feed(m, u)
		}},
		{"tree focus", func(t *testing.T) Model { m, _ := press(base(t), "tab"); return m }},
		{"search", func(t *testing.T) Model {
			m, _ := press(base(t), "tab")
			m, _ = press(m, "/")
			return typeText(m, "parser")
		}},
		{"tool highlighted and expanded", func(t *testing.T) Model {
			m, _ := newTestModel(t, 80, 24, newFake(rootInfo()))
			m = feed(m, marksScenario()...)
			m = pressAlt(pressAlt(m, "up"), "up")
			m, _ = press(m, "ctrl+o")
			return m
		}},
		{"slash menu", func(t *testing.T) Model { return typeText(base(t), "/") }},
		{"diff review", func(t *testing.T) Model { m, _ := reviewModel(t, 80, 24); return ctrlD(m) }},
		{"diff review confirming", func(t *testing.T) Model {
			m, _ := reviewModel(t, 80, 24)
			m, _ = press(pressDown(ctrlD(m)), "r")
			return m
		}},
		{"long draft", func(t *testing.T) Model {
			return typeText(base(t), strings.Repeat("a long draft with 漢字 and emoji 🌳 ", 30))
		}},
		// Issue 35's remaining items: a refused spawn, a patch outside the
		// writable roots, a scrolled tree with its markers, a skill mark
		// under an opening warning, a filtered picker.
		{"refused spawn", func(t *testing.T) Model {
			args := `{"agent_type":"worker","agent_name":"careful","message":"` + longCommand() + `"}`
			end := toolEnd(rootID, "sp9", "spawn_agent", args, "agent thread limit reached (max 12): "+longCommand())
			end.Tool.IsError = true
			return feed(base(t), toolBegin(rootID, "sp9", "spawn_agent", args), end)
		}},
		{"patch outside the roots", func(t *testing.T) Model {
			e := patchApproval("ap1", 30*time.Second)
			e.Approval.Outside = []string{longCommand()}
			return feed(base(t), e)
		}},
		{"tree scrolled", func(t *testing.T) Model {
			m, _ := newTestModel(t, 80, 24, newFake(rootInfo()))
			m = feed(m, twelveAgents()...)
			m, _ = press(m, "tab")
			for range 6 {
				m, _ = press(m, "down")
			}
			return m
		}},
		{"skill mark and opening warning", func(t *testing.T) Model {
			fb := newFake(rootInfo())
			fb.info.Warnings = []string{"skills: " + longCommand()}
			m, _ := newTestModel(t, 80, 24, fb)
			m.attach(skillFake{fb, []SkillItem{{Name: "gh-review"}}})
			return feed(m, userMsg(rootID, "use $gh-review "+longCommand()))
		}},
		{"picker filtered", func(t *testing.T) Model {
			m := base(t)
			m.picker = newPicker("/tmp/none", m.now)
			var es []rollout.IndexEntry
			for i := range 30 {
				es = append(es, rollout.IndexEntry{ID: protocol.ThreadID(fmt.Sprintf("00000000-0000-7000-8000-%012d", i)), Cwd: "/work/project",
					UpdatedAt: t0.Add(time.Duration(i) * time.Minute), FirstPrompt: strings.Repeat("fix the parser ", i%5+1)})
			}
			m.picker.update(pickerLoadedMsg{entries: es})
			return typeText(m, "fix pa")
		}},
		{"picker", func(t *testing.T) Model {
			m := base(t)
			m.picker = newPicker("/tmp/none", m.now)
			var es []rollout.IndexEntry
			for i := range 30 {
				es = append(es, rollout.IndexEntry{ID: protocol.ThreadID(fmt.Sprintf("00000000-0000-7000-8000-%012d", i)), Cwd: "/work/project/" + strings.Repeat("deep/", i%7),
					UpdatedAt: t0.Add(time.Duration(i) * time.Minute), FirstPrompt: strings.Repeat("fix the parser ", i%5+1), ChildCount: i % 3})
			}
			m.picker.update(pickerLoadedMsg{entries: es})
			return m
		}},
	}
}

// checkFits fails when the screen is not exactly h lines of at most w
// columns.
func checkFits(t *testing.T, label string, s string, w, h int) {
	t.Helper()
	lines := strings.Split(s, "\n")
	if len(lines) != h {
		t.Fatalf("%s: %d lines, want %d:\n%s", label, len(lines), h, s)
	}
	for i, l := range lines {
		if n := ansi.StringWidth(l); n > w {
			t.Fatalf("%s: line %d is %d wide (max %d): %q", label, i, n, w, l)
		}
	}
}

func resize(m Model, w, h int) Model {
	mm, _ := m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return mm.(Model)
}

// renderAt renders m at w×h, turning a panic into a test failure that
// names the state and the size.
func renderAt(t *testing.T, name string, m Model, w, h int) Model {
	t.Helper()
	m = resize(m, w, h)
	label := fmt.Sprintf("%s at %dx%d", name, w, h)
	var s string
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("%s: panic: %v", label, r)
			}
		}()
		s = m.render()
	}()
	checkFits(t, label, s, w, h)
	return m
}

// TestEveryStateFitsEverySize is the layout property: every screen state,
// rendered at every size from 20x6 to 300x100, never panics and never
// draws a line wider than the window or more rows than it has.
func TestEveryStateFitsEverySize(t *testing.T) {
	widths := []int{20, 21, 22, 24, 27, 30, 33, 36, 40, 45, 50, 59, 60, 61, 70, 80, 99, 100, 120, 160, 200, 300}
	heights := []int{6, 7, 8, 9, 10, 11, 12, 13, 14, 16, 18, 20, 24, 30, 40, 60, 100}
	for _, st := range screenStates() {
		t.Run(st.name, func(t *testing.T) {
			m := st.build(t)
			for _, w := range widths {
				for _, h := range heights {
					renderAt(t, st.name, m, w, h)
				}
			}
		})
	}
}

// TestEveryStateSurvivesResizes resizes each state through a walk of
// sizes (shrinking and growing, as a user drags a window) rendering after
// each step: the state a resize leaves (scroll offsets, caches) must fit
// the next size too.
func TestEveryStateSurvivesResizes(t *testing.T) {
	walk := [][2]int{{80, 13}, {30, 12}, {20, 6}, {300, 100}, {80, 24}, {25, 7}, {120, 40}, {61, 9}, {59, 30}, {20, 100}, {300, 6}, {80, 13}}
	for _, st := range screenStates() {
		t.Run(st.name, func(t *testing.T) {
			m := st.build(t)
			for _, sz := range walk {
				m = renderAt(t, st.name, m, sz[0], sz[1])
				m, _ = press(m, "pgup") // scroll state carried into the next size
			}
		})
	}
}
