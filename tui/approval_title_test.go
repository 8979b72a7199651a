package tui

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// modalText is the modal's rows as a person reads them: the text between
// the double border, trimmed.
func modalText(s string) []string {
	var rows []string
	for _, l := range strings.Split(s, "\n") {
		i, j := strings.Index(l, "║"), strings.LastIndex(l, "║")
		if i < 0 || j <= i {
			continue
		}
		rows = append(rows, strings.TrimSpace(l[i+len("║"):j]))
	}
	return rows
}

var windowMarker = regexp.MustCompile(`↕(\d+)–(\d+)/(\d+)`)

// TestApprovalTitleWrapsWhole: with three escalations queued and a long
// command, the modal at 80x24, 60x20 and 40x12 shows its whole question
// (wrapped, never cut) with the "more lines" marker, and paging through
// the command shows every character of it before it can be approved.
func TestApprovalTitleWrapsWhole(t *testing.T) {
	long := "go mod download && " + strings.Repeat("go test ./pkg/when/... -run Leap -count=1 && ", 8) + "echo last"
	for _, size := range [][2]int{{80, 24}, {60, 20}, {40, 12}} {
		m, c := newTestModel(t, size[0], size[1], newFake(rootInfo()))
		m = feed(m, treeScenario()...)
		m = feed(m, escalationApproval("ap1", 30*time.Second, long), escalationApproval("ap2", 31*time.Second, "ls"), escalationApproval("ap3", 32*time.Second, "ls"))
		c.t = c.t.Add(pause)
		s := screen(m)
		checkSize(t, s, size[0], size[1])
		rows := modalText(s)
		joined := strings.Join(strings.Fields(strings.Join(rows, " ")), " ")
		if !strings.Contains(joined, "outside the sandbox (1 of 3) Allow this command?") {
			t.Fatalf("%v: the question is not whole:\n%s", size, s)
		}
		if !windowMarker.MatchString(rows[0]) {
			t.Fatalf("%v: no more-lines marker on the modal's first row:\n%s", size, s)
		}
		m, got := readWholeCommand(t, m, size)
		if got != strings.ReplaceAll("$ "+long, " ", "") {
			t.Fatalf("%v: paging shows the command as\n%s\nwant\n%s", size, got, "$ "+long)
		}
		// The second key's question is as long as questions get: whole too.
		m, _ = press(m, "a")
		s = screen(m)
		const q = "Run commands like this OUTSIDE the sandbox for the rest of the session?"
		if joined := strings.Join(strings.Fields(strings.Join(modalText(s), " ")), " "); !m.appr.confirming() || !strings.Contains(joined, q) {
			t.Fatalf("%v: the confirm question is not whole:\n%s", size, s)
		}
	}
}

// readWholeCommand pages through the focused modal's command the way a
// person does (tab, then pgdn) and returns what was seen, spaces removed
// (the wrap breaks at spaces).
func readWholeCommand(t *testing.T, m Model, size [2]int) (Model, string) {
	t.Helper()
	m, _ = press(m, "tab")
	seen := map[int]string{}
	total := 0
	for range 30 {
		s := screen(m)
		rows := modalText(s)
		mk := windowMarker.FindStringSubmatch(strings.Join(rows, " "))
		if mk == nil {
			t.Fatalf("%v: no marker while paging:\n%s", size, s)
		}
		from, _ := strconv.Atoi(mk[1])
		to, _ := strconv.Atoi(mk[2])
		total, _ = strconv.Atoi(mk[3])
		q := 0
		for q < len(rows) && !strings.HasSuffix(rows[q], "command?") {
			q++
		}
		if q+1+to-from >= len(rows) {
			t.Fatalf("%v: the window %d–%d is not all on screen:\n%s", size, from, to, s)
		}
		for i := from; i <= to; i++ {
			seen[i] = rows[q+1+i-from]
		}
		if to == total {
			break
		}
		m, _ = press(m, "pgdown")
	}
	var b strings.Builder
	for i := 1; i <= total; i++ {
		line, ok := seen[i]
		if !ok {
			t.Fatalf("%v: row %d of %d never shown", size, i, total)
		}
		b.WriteString(strings.ReplaceAll(line, " ", ""))
	}
	return m, b.String()
}
