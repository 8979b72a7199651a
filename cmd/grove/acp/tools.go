package acp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/grovecli/grove/protocol"
)

// toolKind maps a call's kind to ACP's kinds (icons in the client).
func toolKind(tc protocol.ToolCall) sdk.ToolKind {
	switch tc.ToolKind() {
	case protocol.ToolKindExec:
		return sdk.ToolKindExecute
	case protocol.ToolKindPatch:
		return sdk.ToolKindEdit
	case protocol.ToolKindRead:
		return sdk.ToolKindRead
	case protocol.ToolKindList, protocol.ToolKindSearch:
		return sdk.ToolKindSearch
	case protocol.ToolKindPlan:
		return sdk.ToolKindThink
	}
	return sdk.ToolKindOther
}

// toolTitle is a one-line, human title for a call.
func toolTitle(tc protocol.ToolCall) string {
	switch tc.ToolKind() {
	case protocol.ToolKindExec:
		return "Run `" + clip(argString(tc.Arguments, "cmd", "command"), 200) + "`"
	case protocol.ToolKindPatch:
		var paths []string
		for _, c := range patchFiles(tc.Patch()) {
			paths = append(paths, c.path)
		}
		return "Edit " + strings.Join(paths, ", ")
	case protocol.ToolKindRead:
		return "Read " + argString(tc.Arguments, "path", "file_path")
	case protocol.ToolKindList:
		return "List " + argString(tc.Arguments, "path", "dir_path")
	case protocol.ToolKindSearch:
		return "Search " + argString(tc.Arguments, "pattern")
	case protocol.ToolKindCollab:
		if tc.Name == "spawn_agent" {
			return "spawn_agent: " + clip(argString(tc.Arguments, "message"), 120)
		}
	}
	return tc.Name
}

// toolLocations names the files a call touches (for "follow along").
func toolLocations(tc protocol.ToolCall, cwd string) []sdk.ToolCallLocation {
	var out []sdk.ToolCallLocation
	switch tc.ToolKind() {
	case protocol.ToolKindPatch:
		for _, c := range patchFiles(tc.Patch()) {
			out = append(out, sdk.ToolCallLocation{Path: absPath(cwd, c.path)})
		}
	case protocol.ToolKindRead:
		if p := argString(tc.Arguments, "path", "file_path"); p != "" {
			out = append(out, sdk.ToolCallLocation{Path: absPath(cwd, p)})
		}
	}
	return out
}

// toolContent is what a finished call shows: a command's output as a
// fenced block, a patch as diffs of the files it wrote, other output as text.
func toolContent(tc protocol.ToolCall, cwd string) []sdk.ToolCallContent {
	switch tc.ToolKind() {
	case protocol.ToolKindExec:
		return []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock("```\n" + strings.TrimRight(tc.Output, "\n") + "\n```"))}
	case protocol.ToolKindPatch:
		if tc.IsError {
			break
		}
		var out []sdk.ToolCallContent
		for _, c := range patchFiles(tc.Patch()) {
			path := absPath(cwd, c.path)
			if c.moveTo != "" {
				path = absPath(cwd, c.moveTo)
			}
			if c.kind == "delete" {
				out = append(out, sdk.ToolDiffContent(path, "", c.removed))
				continue
			}
			// The file as the patch left it; the old text is the patch's
			// context and removed lines (the whole old file is gone).
			b, err := os.ReadFile(path)
			if err != nil {
				continue
			}
			if c.kind == "add" {
				out = append(out, sdk.ToolDiffContent(path, string(b)))
			} else {
				out = append(out, sdk.ToolDiffContent(path, string(b), c.removed))
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(tc.Output))}
}

// patchFile is one file of an apply_patch input.
type patchFile struct {
	path, kind, moveTo string
	removed            string // old lines (context and removals) of an update
}

func patchFiles(input string) []patchFile {
	var out []patchFile
	var cur *patchFile
	for _, line := range strings.Split(input, "\n") {
		line = strings.TrimRight(line, "\r")
		start := func(prefix, kind string) {
			out = append(out, patchFile{path: strings.TrimSpace(strings.TrimPrefix(line, prefix)), kind: kind})
			cur = &out[len(out)-1]
		}
		switch {
		case strings.HasPrefix(line, "*** Add File: "):
			start("*** Add File: ", "add")
		case strings.HasPrefix(line, "*** Delete File: "):
			start("*** Delete File: ", "delete")
		case strings.HasPrefix(line, "*** Update File: "):
			start("*** Update File: ", "update")
		case strings.HasPrefix(line, "*** Move to: ") && cur != nil:
			cur.moveTo = strings.TrimSpace(strings.TrimPrefix(line, "*** Move to: "))
		case strings.HasPrefix(line, "***"):
			cur = nil
		case cur != nil && cur.kind == "update" && (strings.HasPrefix(line, "-") || strings.HasPrefix(line, " ")):
			cur.removed += line[1:] + "\n"
		}
	}
	return out
}

func absPath(cwd, p string) string {
	if filepath.IsAbs(p) || cwd == "" {
		return p
	}
	return filepath.Join(cwd, p)
}

// argString reads a string argument of a call, the first of keys present ("" when absent or bad:
// arguments are the model's, possibly malformed).
func argString(args string, keys ...string) string {
	var m map[string]any
	if json.Unmarshal([]byte(args), &m) != nil {
		return ""
	}
	for _, k := range keys {
		if s, _ := m[k].(string); s != "" {
			return s
		}
	}
	return ""
}

// rawArgs is a call's arguments as JSON, or the raw text when malformed.
func rawArgs(args string) any {
	var v any
	if json.Unmarshal([]byte(args), &v) == nil {
		return v
	}
	return map[string]any{"raw": args}
}

func planUpdate(p protocol.Plan) sdk.SessionUpdate {
	entries := make([]sdk.PlanEntry, 0, len(p.Steps))
	for _, st := range p.Steps {
		status := sdk.PlanEntryStatusPending
		switch st.Status {
		case "in_progress":
			status = sdk.PlanEntryStatusInProgress
		case "completed":
			status = sdk.PlanEntryStatusCompleted
		}
		entries = append(entries, sdk.PlanEntry{Content: st.Step, Priority: sdk.PlanEntryPriorityMedium, Status: status})
	}
	return sdk.UpdatePlan(entries...)
}

func approvalTitle(a protocol.ApprovalRequest) string {
	who := ""
	if len(a.Chain) > 1 {
		who = strings.Join(a.Chain, " → ") + ": "
	}
	switch a.Kind {
	case protocol.ApprovalPatch:
		return fmt.Sprintf("%sEdit %s", who, strings.Join(a.Files, ", "))
	case protocol.ApprovalWorkingDir:
		return fmt.Sprintf("%sSpawn a sub-agent in %s", who, a.Dir)
	}
	return fmt.Sprintf("%sRun `%s`", who, clip(a.Command, 200))
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
