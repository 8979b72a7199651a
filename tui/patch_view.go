package tui

import (
	"encoding/json"
	"fmt"
	"strings"
)

// An apply_patch call shows as a diff, as Codex shows one: each file with
// what happens to it and its +/- counts, then its changed lines in colour.

// patchFile is one file of an apply_patch input.
type patchFile struct {
	op, path   string // op: A (add), M (update), D (delete)
	lines      []string
	add, del   int
	moveTarget string
}

// parsePatch reads the files of an apply_patch input ("*** Begin Patch"
// format). Lines it does not know are kept as context.
func parsePatch(input string) []patchFile {
	var files []patchFile
	var cur *patchFile
	for _, l := range strings.Split(input, "\n") {
		switch {
		case strings.HasPrefix(l, "*** Add File: "):
			files = append(files, patchFile{op: "A", path: strings.TrimPrefix(l, "*** Add File: ")})
			cur = &files[len(files)-1]
		case strings.HasPrefix(l, "*** Update File: "):
			files = append(files, patchFile{op: "M", path: strings.TrimPrefix(l, "*** Update File: ")})
			cur = &files[len(files)-1]
		case strings.HasPrefix(l, "*** Delete File: "):
			files = append(files, patchFile{op: "D", path: strings.TrimPrefix(l, "*** Delete File: ")})
			cur = &files[len(files)-1]
		case strings.HasPrefix(l, "*** Move to: ") && cur != nil:
			cur.moveTarget = strings.TrimPrefix(l, "*** Move to: ")
		case strings.HasPrefix(l, "***") || cur == nil:
			// Begin/End Patch, End of File.
		default:
			cur.lines = append(cur.lines, l)
			if strings.HasPrefix(l, "+") {
				cur.add++
			} else if strings.HasPrefix(l, "-") {
				cur.del++
			}
		}
	}
	return files
}

// patchInput is the patch text of an apply_patch call's arguments (the
// JSON "input" field, or the raw arguments of a freeform call).
func patchInput(args string) string {
	var a struct {
		Input string `json:"input"`
	}
	if json.Unmarshal([]byte(args), &a) == nil && a.Input != "" {
		return a.Input
	}
	return args
}

// patchCounts sums the +/- counts of the files.
func patchCounts(files []patchFile) (add, del int) {
	for _, f := range files {
		add, del = add+f.add, del+f.del
	}
	return add, del
}

// patchLines renders the files of a patch at width w; collapsed, at most
// limit diff lines show.
func (r *renderer) patchLines(files []patchFile, w int, collapsed bool) []string {
	const limit = 8
	var out []string
	shown, hidden := 0, 0
	for _, f := range files {
		path := f.path
		if f.moveTarget != "" {
			path += " → " + f.moveTarget
		}
		counts := r.th.done.Render(fmt.Sprintf("+%d", f.add)) + " " + r.th.failed.Render(fmt.Sprintf("-%d", f.del))
		out = append(out, "  "+r.th.cardTitle.Render(f.op+" "+clip(path, max(1, w-14)))+" "+counts)
		for _, l := range f.lines {
			if collapsed && shown >= limit {
				hidden++
				continue
			}
			shown++
			text := clip(strings.ReplaceAll(l, "\t", "    "), max(1, w-4))
			switch {
			case strings.HasPrefix(l, "+"):
				out = append(out, "    "+r.th.done.Render(text))
			case strings.HasPrefix(l, "-"):
				out = append(out, "    "+r.th.failed.Render(text))
			default:
				out = append(out, "    "+r.th.dim.Render(text))
			}
		}
	}
	if hidden > 0 {
		out = append(out, r.th.dim.Render(clip(fmt.Sprintf("  … %d more lines (ctrl+o to expand)", hidden), w)))
	}
	return out
}
