package main

import "github.com/grovecli/grove/tui"

// Skills offers the session's skills to the TUI's $ picker.
func (b backend) Skills() []tui.SkillItem {
	var out []tui.SkillItem
	for _, s := range b.Engine().Options().Skills.Skills {
		out = append(out, tui.SkillItem{Name: s.Name, Description: s.Description})
	}
	return out
}
