package engine

import (
	"strings"
	"unicode/utf8"
)

// MaxNoteLen is the longest thread note kept, in characters.
const MaxNoteLen = 500

// NormalizeNote trims, collapses runs of whitespace to one space and cuts
// the note to MaxNoteLen characters. An empty result clears the note.
func NormalizeNote(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= MaxNoteLen {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:MaxNoteLen]))
}

// defaultNote is the note of a spawned thread that got none: the fields
// that are known, in seed 000's format.
func defaultNote(agentType, agentName, description string) string {
	var parts []string
	if agentType != "" {
		parts = append(parts, "agent_type="+agentType)
	}
	if agentName != "" {
		parts = append(parts, "agent_name="+agentName)
	}
	if description != "" {
		parts = append(parts, "agent_description="+description)
	}
	return NormalizeNote(strings.Join(parts, "; "))
}
