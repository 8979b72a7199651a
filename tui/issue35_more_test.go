package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

// Item 14: three spawns of one reply whose threads start in another order
// are listed (tree and cards) in the order the model asked for them; a
// resumed screen equals the live one, and still does one turn later.
func TestTreeFollowsSpawnOrder(t *testing.T) {
	var ids []protocol.ThreadID
	var infos []protocol.ThreadInfo
	rootEvs := []protocol.Event{status(rootID, protocol.Running(), time.Second), userMsg(rootID, "split it")}
	for i, name := range []string{"Ada", "Boole", "Curie"} {
		id := protocol.ThreadID(fmt.Sprintf("00000000-0000-7000-8000-%012d", 300+i))
		ids = append(ids, id)
		info := child(id, "worker", "", "part "+name, 1, rootID)
		info.Nickname, info.SpawnCallID = name, fmt.Sprintf("sp%d", i)
		infos = append(infos, info)
		rootEvs = append(rootEvs, toolBegin(rootID, info.SpawnCallID, "spawn_agent", `{"agent_type":"worker","message":"part `+name+`"}`))
	}
	var childEvs [3][]protocol.Event
	live := append([]protocol.Event(nil), rootEvs...)
	for _, i := range []int{2, 0, 1} { // the threads start out of order
		st := started(infos[i], 2*time.Second)
		childEvs[i] = append(childEvs[i], st, userMsg(ids[i], "part"), message(ids[i], "done "+infos[i].Nickname))
		live = append(live, childEvs[i]...)
	}
	for _, i := range []int{1, 2, 0} {
		end := toolEnd(rootID, infos[i].SpawnCallID, "spawn_agent", `{}`, `{"agent_id":"`+string(ids[i])+`"}`, ids[i])
		rootEvs, live = append(rootEvs, end), append(live, end)
	}
	for i := range ids {
		closed := status(ids[i], protocol.Shutdown(), 3*time.Second)
		childEvs[i], live = append(childEvs[i], closed), append(live, closed)
	}
	done := protocol.Completed("spawned three", true)
	for _, e := range []protocol.Event{message(rootID, "spawned three"), status(rootID, done, 4*time.Second)} {
		rootEvs, live = append(rootEvs, e), append(live, e)
	}

	root := rootInfo()
	root.Status = done
	root.RolloutPath = writeRollout(t, rootEvs...)
	var resumedInfos []protocol.ThreadInfo
	for _, i := range []int{1, 2, 0} { // the engine lists them in yet another order
		info := infos[i]
		info.Status, info.RolloutPath = protocol.Shutdown(), writeRollout(t, childEvs[i]...)
		resumedInfos = append(resumedInfos, info)
	}
	next := []protocol.Event{userMsg(rootID, "and now?"), message(rootID, "all three are done")}
	for i := range next {
		next[i].Timestamp = t0.Add(time.Hour + time.Duration(i)*time.Second)
	}
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		m, _ := newTestModel(t, size[0], size[1], newFake(rootInfo()))
		m = feed(m, live...)
		s := screen(m)
		a, b, c := strings.Index(s, "Ada"), strings.Index(s, "Boole"), strings.Index(s, "Curie")
		if a < 0 || !(a < b && b < c) {
			t.Fatalf("%v: tree not in spawn order (Ada %d, Boole %d, Curie %d):\n%s", size, a, b, c, s)
		}
		r, _ := newTestModel(t, size[0], size[1], newFake(append([]protocol.ThreadInfo{root}, resumedInfos...)...))
		r = drive(r, r.scanResumed())
		for round := range 2 {
			for _, focus := range []protocol.ThreadID{rootID, ids[0]} {
				m.focusThread(focus)
				r.focusThread(focus)
				if ls, rs := screen(m), screen(r); ls != rs {
					t.Fatalf("%v round %d %s: resumed differs from live:\nlive:\n%s\nresumed:\n%s", size, round, focus.Short(), ls, rs)
				}
			}
			m, r = feed(m, next...), feed(r, next...)
		}
		m.focusThread(rootID)
		golden(t, sizeName(size), screen(m))
	}
}

// Item 15: a spawn the agent limit refused says ✗ and names the agent it
// asked for (role, persona, task), not just the engine's error.
func TestRefusedSpawnShowsCrossAndName(t *testing.T) {
	args := `{"agent_type":"worker","agent_name":"careful","message":"fix the leap-year check in pkg/when"}`
	end := toolEnd(rootID, "sp9", "spawn_agent", args, "agent thread limit reached (max 12): 12 sub-agents are running or pending (agents.max_threads); a slot frees when one finishes")
	end.Tool.IsError = true
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		m, _ := newTestModel(t, size[0], size[1], newFake(rootInfo()))
		m = feed(m, status(rootID, protocol.Running(), time.Second), userMsg(rootID, "one more"), toolBegin(rootID, "sp9", "spawn_agent", args), end)
		s := screen(m)
		for _, want := range []string{"spawn_agent ✗ not started", "✗ worker (careful) · fix the", "agent thread limit reached"} {
			if !strings.Contains(s, want) {
				t.Errorf("%v: screen lacks %q:\n%s", size, want, s)
			}
		}
		golden(t, sizeName(size), s)
	}
}

// Item 17: a patch writing outside the writable roots gets what an
// escalated command gets: the red badge, the sandbox line in red, and a
// second key to approve.
func TestPatchOutsideRootsNeedsTwoKeys(t *testing.T) {
	outside := func(at time.Duration) protocol.Event {
		e := ev(protocol.EventApprovalRequested, rootID, at)
		e.Approval = &protocol.ApprovalRequest{ID: "p1", ThreadID: rootID, Kind: protocol.ApprovalPatch, Cwd: "/work/project",
			Files: []string{"/etc/hosts"}, Outside: []string{"/etc/hosts is outside the writable roots"},
			Reason: "/etc/hosts is outside the writable roots",
			Patch:  "*** Begin Patch\n*** Update File: /etc/hosts\n@@\n+127.0.0.1 grove.test\n*** End Patch"}
		return e
	}
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		fb := newFake(rootInfo())
		m, c := newTestModel(t, size[0], size[1], fb)
		m = feed(m, status(rootID, protocol.Running(), time.Second), outside(5*time.Second))
		c.t = c.t.Add(approvalGrace) // the golden is the modal once answers open
		s := screen(m)
		for _, want := range []string{"outside the sandbox", "Allow these file changes?", "writes outside the writable roots"} {
			if !strings.Contains(s, want) {
				t.Errorf("%v: modal lacks %q:\n%s", size, want, s)
			}
		}
		golden(t, sizeName(size), s)
		m, _ = press(m, "tab")
		m.appr.shownAt = m.now().Add(-time.Minute)
		m, _ = press(m, "y")
		if !m.appr.confirming() || len(approvalOps(fb)) != 0 {
			t.Fatalf("%v: y alone approved a patch outside the roots: %+v", size, approvalOps(fb))
		}
		if s := screen(m); !strings.Contains(s, "Write these files OUTSIDE the writable roots?") {
			t.Errorf("%v: the confirmation does not say what it writes:\n%s", size, s)
		}
		c.t = c.t.Add(approvalGrace)
		m, cmd := press(m, "enter")
		runCmd(cmd)
		if ops := approvalOps(fb); len(ops) != 1 || ops[0].Decision != protocol.DecisionApproved {
			t.Fatalf("%v: ops %+v", size, ops)
		}
		if s := screen(m); !strings.Contains(s, "✔ You approved outside the sandbox: /etc/hosts") {
			t.Errorf("%v: no trace of the approval:\n%s", size, s)
		}
	}
}

// Item 26: the picker's filter matches the text whole, or in pieces at
// word starts, never scattered letters ("greet" found "migrate every
// package…"); whole matches rank first even when older; its footer lists
// the picker's keys, not the main screen's.
func TestPickerFilterIsStrictAndHasItsOwnKeys(t *testing.T) {
	saved := dirGone
	dirGone = func(string) bool { return false }
	defer func() { dirGone = saved }()
	home := t.TempDir()
	prompts := []string{"greet the user on the welcome screen", "migrate every package to go 1.26", "fix the parser", "go right, every entry tested"}
	for i, p := range prompts {
		// The first is the oldest (last week); the others are from today.
		at := t0.Add(-time.Duration(len(prompts)-i) * time.Hour)
		if i == 0 {
			at = t0.Add(-5 * 24 * time.Hour)
		}
		_ = rollout.AppendIndex(home, rollout.IndexEntry{ID: protocol.ThreadID(fmt.Sprintf("0000000%d-0000-7000-8000-00000000000%d", i, i)), Cwd: "/work/project", UpdatedAt: at, FirstPrompt: p})
	}
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		c := &clock{t: t0}
		m := NewModel(Options{StartInPicker: true, Home: home, Now: c.now})
		mm, _ := m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		m = mm.(Model)
		mm, _ = m.Update(m.picker.load()())
		m = mm.(Model)
		m = typeText(m, "greet")
		s := screen(m)
		if !strings.Contains(s, "greet the user") || strings.Contains(s, "migrate every package") {
			t.Errorf("%v: greet:\n%s", size, s)
		}
		// "gre": whole in the greeting (last week's), in pieces at word
		// starts in "go right, every…" (today's), and not in "migrate".
		for range 2 {
			m, _ = press(m, "backspace")
		}
		s = screen(m)
		g, r := strings.Index(s, "greet the user"), strings.Index(s, "go right, every")
		if strings.Contains(s, "migrate every") || g < 0 || r < 0 || g > r {
			t.Errorf("%v: gre:\n%s", size, s)
		}
		for range 3 {
			m, _ = press(m, "backspace")
		}
		m = typeText(m, "fp")
		s = screen(m)
		if !strings.Contains(s, "fix the parser") || !strings.Contains(s, "1 match") {
			t.Errorf("%v: fp:\n%s", size, s)
		}
		last := s[strings.LastIndex(s, "\n")+1:]
		if !strings.Contains(last, "enter resume") || !strings.Contains(last, "esc clear filter") || strings.Contains(last, "? help") {
			t.Errorf("%v: footer %q", size, last)
		}
		golden(t, sizeName(size), s)
	}
	for _, tc := range []struct {
		pattern, text string
		ok, whole     bool
	}{
		{"greet", "migrate every package", false, false},
		{"parser", "fix the parser", true, true},
		{"fix pars", "fix the parser", true, false},
		{"ftp", "fix the parser", true, false},
		{"fxp", "fix the parser", false, false},
	} {
		_, whole, ok := matchScore(tc.pattern, tc.text)
		if ok != tc.ok || whole != tc.whole {
			t.Errorf("%q in %q: ok %v whole %v, want %v %v", tc.pattern, tc.text, ok, whole, tc.ok, tc.whole)
		}
	}
}

// Item 27: a tree longer than its pane says how many agents are above and
// below; a click on an agent's note line focuses that agent.
func TestTreeScrollMarkersAndNoteClick(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		m, _ := newTestModel(t, size[0], size[1], newFake(rootInfo()))
		m = feed(m, twelveAgents()...)
		s := screen(m)
		if size[1] == 24 && !strings.Contains(s, "agents 13 · ↓") {
			t.Errorf("%v: no marker for agents below:\n%s", size, s)
		}
		if size[1] == 40 && strings.Contains(s, "↓") {
			t.Errorf("%v: a marker with every agent on screen:\n%s", size, s)
		}
		row := -1
		for i, l := range strings.Split(s, "\n") {
			if strings.Contains(l, "task 03") {
				row = i
			}
		}
		mm, _ := m.Update(tea.MouseClickMsg{X: 6, Y: row, Button: tea.MouseLeft})
		m = mm.(Model)
		if want := protocol.ThreadID("00000000-0000-7000-8000-000000000003"); row < 0 || m.focused != want {
			t.Fatalf("%v: click on the note row %d focused %s", size, row, m.focused)
		}
		m, _ = press(m, "tab")
		for range 12 {
			m, _ = press(m, "down")
		}
		s = screen(m)
		if size[1] == 24 && !strings.Contains(s, "↑") {
			t.Errorf("%v: no marker for agents above:\n%s", size, s)
		}
		golden(t, sizeName(size), s)
	}
}

// Item 29: a message naming a skill says which skill it attached, live and
// resumed alike (resumed from the engine's <skill> notice); a problem
// found while opening the session (a broken SKILL.md) is a warning in the
// transcript at start, under the welcome card.
func TestSkillMarkAndOpeningWarnings(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		fb := newFake(rootInfo())
		fb.info.Warnings = []string{"skills: .agents/skills/broken/SKILL.md: no name in its frontmatter (skipped)"}
		b := skillFake{fb, []SkillItem{{Name: "gh-review", Description: "review a PR"}, {Name: "lint"}}}
		m, _ := newTestModel(t, size[0], size[1], fb)
		m.attach(b)
		s := screen(m)
		if !strings.Contains(s, "Welcome to grove") || !strings.Contains(s, "broken/SKILL.md: no name") {
			t.Errorf("%v: no welcome or no opening warning:\n%s", size, s)
		}
		m = feed(m, status(rootID, protocol.Running(), time.Second), userMsg(rootID, "use $gh-review on #12, not $HOME or $lint-x"))
		s = screen(m)
		if !strings.Contains(s, "◆ skill attached: gh-review") || strings.Contains(s, "attached: HOME") || strings.Contains(s, "attached: lint") {
			t.Errorf("%v: skill mark:\n%s", size, s)
		}
		golden(t, sizeName(size), s)
	}
	// Resumed from items: the notice becomes the same line, not the body.
	fb := newFake(rootInfo())
	fb.history = map[protocol.ThreadID][]protocol.Item{rootID: {
		{Type: protocol.ItemMessage, Role: protocol.RoleUser, Content: "use $gh-review"},
		protocol.GroveNotice("<skill>\n<name>gh-review</name>\n<path>/x/SKILL.md</path>\nthe whole body\n</skill>"),
	}}
	m, _ := newTestModel(t, 120, 40, fb)
	if s := screen(m); !strings.Contains(s, "◆ skill attached: gh-review") || strings.Contains(s, "the whole body") {
		t.Errorf("resumed skill notice:\n%s", s)
	}
}

// Found in the walkthrough: a card's line of what an agent answered showed
// its Markdown raw ("**all good** and the `parser`").
func TestCardAnswerLineIsPlain(t *testing.T) {
	m, _ := newTestModel(t, 120, 40, newFake(rootInfo()))
	w := child(workerID, "worker", "", "part 1", 1, rootID)
	m = feed(m, toolBegin(rootID, "sp1", "spawn_agent", `{"agent_type":"worker","message":"part 1"}`), started(w, time.Second),
		toolEnd(rootID, "sp1", "spawn_agent", `{}`, `{"agent_id":"`+string(workerID)+`"}`, workerID),
		status(workerID, protocol.Completed("Worker finished: **all good** and the `parser` works.\n\n- item", true), 5*time.Second))
	if s := screen(m); !strings.Contains(s, "Worker finished: all good and the parser works.") || strings.Contains(s, "**all good**") {
		t.Errorf("card answer line:\n%s", s)
	}
}
