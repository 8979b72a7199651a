package protocol

import (
	"encoding/json"
	"strings"
)

// Patch is the patch a file-writing call makes, for front ends to show:
// apply_patch's input, or a Claude file tool's arguments (Write, Edit,
// MultiEdit) as an apply_patch patch (what it replaces and with what; the
// model's own text, to be escaped when rendered). Empty for other calls.
func (c ToolCall) Patch() string {
	name, args := c.Name, c.Arguments
	if name == "apply_patch" {
		var in struct {
			Input string `json:"input"`
		}
		if json.Unmarshal([]byte(args), &in) == nil && in.Input != "" {
			return in.Input
		}
		return args // a freeform call's raw text
	}
	if c.ToolKind() != ToolKindPatch {
		return ""
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
