package tui

import (
	"fmt"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

func lipglossWidth(s string) int { return lipgloss.Width(s) }

func ansiStrip(s string) string { return ansi.Strip(s) }

// plural renders a count with its noun: "1 agent", "3 agents".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
