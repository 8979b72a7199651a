package tui

import (
	"fmt"
	"strings"
)

// The $ skill picker: typing $ (and part of a name) at the end of the
// composer lists the session's skills; up/down choose, tab or enter puts
// "$name " in place of what was typed. Sending a message with $name loads
// that skill for the agent (core/skills).

// SkillItem is one skill the picker offers.
type SkillItem struct {
	Name        string
	Description string
}

// SkillSource is implemented by a Backend whose session has skills.
type SkillSource interface {
	Skills() []SkillItem
}

// maxSkillMenu bounds the picker's rows.
const maxSkillMenu = 8

func (m Model) skillItems() []SkillItem {
	if s, ok := m.backend.(SkillSource); ok {
		return s.Skills()
	}
	return nil
}

// skillToken is the $word being typed at the end of the composer, and
// where it starts; ok is false when there is none.
func (m Model) skillToken() (token string, start int, ok bool) {
	v := m.composer.Value()
	start = strings.LastIndexAny(v, " \n\t") + 1
	token = v[start:]
	return token, start, strings.HasPrefix(token, "$") && m.search == nil && !strings.HasPrefix(v, "/")
}

// skillMenu lists the skills matching the $word being typed.
func (m Model) skillMenu() []SkillItem {
	token, _, ok := m.skillToken()
	if !ok {
		return nil
	}
	prefix := strings.ToLower(token[1:])
	var out []SkillItem
	for _, s := range m.skillItems() {
		if strings.HasPrefix(strings.ToLower(s.Name), prefix) {
			out = append(out, s)
			if len(out) == maxSkillMenu {
				break
			}
		}
	}
	// A name typed in full needs no menu: enter sends it.
	if len(out) == 1 && "$"+out[0].Name == token {
		return nil
	}
	return out
}

// skillMenuKey handles keys while the picker shows; ok is false for keys
// the composer should get.
func (m Model) skillMenuKey(k string) (Model, bool) {
	menu := m.skillMenu()
	if len(menu) == 0 {
		return m, false
	}
	sel := min(m.skillSel, len(menu)-1)
	switch {
	case is(k, menuKeys.Up):
		m.skillSel = (sel + len(menu) - 1) % len(menu)
	case is(k, menuKeys.Down):
		m.skillSel = (sel + 1) % len(menu)
	case is(k, menuKeys.Complete, menuKeys.Run):
		_, start, _ := m.skillToken()
		m.composer.SetValue(m.composer.Value()[:start] + "$" + menu[sel].Name + " ")
		m.composer.CursorEnd()
		m.skillSel = 0
	default:
		return m, false
	}
	return m, true
}

// skillMenuLines renders the picker above the composer.
func (m Model) skillMenuLines() []string {
	menu := m.skillMenu()
	sel := min(m.skillSel, len(menu)-1)
	var out []string
	for i, s := range menu {
		name := fmt.Sprintf("  $%-20s", s.Name)
		desc := s.Description
		if room := m.w - len(name) - 2; room > 0 && len(desc) > room {
			desc = desc[:max(room-1, 0)] + "…"
		}
		if i == sel {
			out = append(out, m.th.tableSel.Render(padRight(name+" "+desc, m.w)))
		} else {
			out = append(out, padRight(m.th.key.Render(name)+" "+m.th.dim.Render(desc), m.w))
		}
	}
	return out
}
