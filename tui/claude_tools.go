package tui

import (
	"encoding/json"
	"strings"
)

// Claude Code's tools (the claude family, docs/tools.md) shown as grove's
// own: a Bash call as a command card, Write/Edit/MultiEdit as a diff.

// isCommandTool reports whether a tool runs a shell command.
func isCommandTool(name string) bool { return name == "exec_command" || name == "Bash" }

// isPatchTool reports whether a tool's arguments show as a patch.
func isPatchTool(name string) bool {
	switch name {
	case "apply_patch", "Write", "Edit", "MultiEdit":
		return true
	}
	return false
}

// toolPatch is the patch a file-writing call shows: apply_patch's input,
// or a Claude file tool's arguments as an apply_patch patch (what it
// replaces and with what; the model's own text, escaped when rendered).
func toolPatch(name, args string) string {
	if name == "apply_patch" {
		return patchInput(args)
	}
	var a struct {
		FilePath  string `json:"file_path"`
		Content   string `json:"content"`
		OldString string `json:"old_string"`
		NewString string `json:"new_string"`
		Edits     []struct {
			OldString string `json:"old_string"`
			NewString string `json:"new_string"`
		} `json:"edits"`
	}
	if json.Unmarshal([]byte(args), &a) != nil || a.FilePath == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString("*** Begin Patch\n")
	switch name {
	case "Write":
		b.WriteString("*** Add File: " + a.FilePath + "\n")
		writeLines(&b, "+", a.Content)
	default:
		b.WriteString("*** Update File: " + a.FilePath + "\n")
		if name == "Edit" {
			a.Edits = append(a.Edits[:0], struct {
				OldString string `json:"old_string"`
				NewString string `json:"new_string"`
			}{a.OldString, a.NewString})
		}
		for _, e := range a.Edits {
			b.WriteString("@@\n")
			writeLines(&b, "-", e.OldString)
			writeLines(&b, "+", e.NewString)
		}
	}
	b.WriteString("*** End Patch\n")
	return b.String()
}

func writeLines(b *strings.Builder, prefix, text string) {
	if text == "" {
		return
	}
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		b.WriteString(prefix + l + "\n")
	}
}
