package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/grovecli/grove/protocol"
)

// skillFake is a backend whose session has skills.
type skillFake struct {
	*fakeBackend
	skills []SkillItem
}

func (s skillFake) Skills() []SkillItem { return s.skills }

// Typing $ lists the skills with their descriptions; typing filters;
// down and tab choose; the message goes out with $name in it.
func TestSkillPicker(t *testing.T) {
	fb := newFake(rootInfo())
	b := skillFake{fb, []SkillItem{{"gh-address-comments", "Help address review comments on the open PR."}, {"release", "Cut a release."}, {"review", "Review the diff."}}}
	mm, _ := NewModel(Options{Backend: b}).Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m := mm.(Model)
	m = typeText(m, "please $")
	s := screen(m)
	for _, want := range []string{"$gh-address-comments", "Help address review comments", "$release", "$review"} {
		if !strings.Contains(s, want) {
			t.Fatalf("picker lacks %q:\n%s", want, s)
		}
	}
	checkSize(t, s, 80, 24)
	m = typeText(m, "re")
	if s := screen(m); strings.Contains(s, "$gh-address-comments") || !strings.Contains(s, "$release") {
		t.Fatalf("filter:\n%s", s)
	}
	m = pressDrive(m, "down") // review
	m = pressDrive(m, "tab")
	if got := m.composer.Value(); got != "please $review " {
		t.Fatalf("composer %q", got)
	}
	if len(m.skillMenu()) != 0 {
		t.Fatal("picker still open after choosing")
	}
	m = typeText(m, "now")
	m = pressDrive(m, "enter")
	var texts []string
	for _, op := range fb.Ops() {
		if op.Type == protocol.OpUserTurn {
			texts = append(texts, op.Text)
		}
	}
	if len(texts) != 1 || texts[0] != "please $review now" {
		t.Fatalf("sent %q", texts)
	}
}

// No skills (or a backend without them): $ is just a character.
func TestSkillPickerWithoutSkills(t *testing.T) {
	m, _ := newTestModel(t, 80, 24, newFake(rootInfo()))
	m = typeText(m, "echo $HOME")
	if len(m.skillMenu()) != 0 || strings.Contains(screen(m), "$HOME ") {
		t.Fatal("picker without skills")
	}
}
