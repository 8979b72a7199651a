package tui

import (
	"fmt"
	"strings"
	"testing"
)

func TestTranscriptSearch(t *testing.T) {
	m, _ := newTestModel(t, 100, 30, newFake(rootInfo()))
	for i := 1; i <= 60; i++ {
		word := "plain"
		if i == 7 || i == 40 {
			word = "needle"
		}
		m = feed(m, message(rootID, fmt.Sprintf("message %d %s", i, word)))
	}
	m, _ = press(m, "ctrl+f")
	m = typeText(m, "needle")
	s := screen(m)
	if !strings.Contains(s, "search: needle") || !strings.Contains(s, "1/2") || !strings.Contains(s, "message 40 needle") {
		t.Fatalf("newest match not shown:\n%s", s)
	}
	if m.composer.Value() != "" {
		t.Fatalf("search keys reached the composer: %q", m.composer.Value())
	}
	m, _ = press(m, "enter") // keep the query
	m, _ = press(m, "enter") // older match
	s = screen(m)
	if !strings.Contains(s, "2/2") || !strings.Contains(s, "message 7 needle") {
		t.Fatalf("older match not shown:\n%s", s)
	}
	// The current match is the highlighted row.
	row := m.searchHit()
	body := strings.Split(s, "\n")[2+row]
	if !strings.Contains(body, "message 7 needle") {
		t.Fatalf("highlighted row %d is %q", row, body)
	}
	m, _ = press(m, "esc")
	if m.tsearch != nil || !m.sess.threads[rootID].follow || !strings.Contains(screen(m), "message 60") {
		t.Fatal("esc did not close the search and follow the bottom")
	}
}
