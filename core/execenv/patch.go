package execenv

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/grovecli/grove/core/sandbox"
	"github.com/grovecli/grove/core/tools/patch"
	"github.com/grovecli/grove/protocol"
)

// ApplyPatch parses and computes the patch against the files as they are
// now, pins every path it writes beneath an open root and checks it
// against the sandbox; with Apply it then writes, all or nothing, unless a
// path is outside the roots and Outside was not granted. The check and the
// write see the same files, whatever happens to symlinks in between.
func (Local) ApplyPatch(ctx context.Context, req PatchRequest) (PatchResult, error) {
	changes, err := requestChanges(req)
	if err != nil {
		return PatchResult{}, err
	}
	pins := patch.NewPins(writeRoots(req))
	defer pins.Close()
	pinnedOutside, err := pins.Pin(changes)
	if err != nil {
		return PatchResult{}, err
	}
	var res PatchResult
	for _, c := range changes {
		for _, path := range []string{c.Path, c.MoveTo} {
			if path == "" {
				continue
			}
			res.Files = append(res.Files, DisplayPath(req.Cwd, path))
			if err := sandbox.CheckWritable(req.Policy, req.Cwd, path); err != nil {
				res.Outside = append(res.Outside, err.Error())
				res.NeedApproval = appendNew(res.NeedApproval, pins.Resolved(path))
			}
		}
	}
	if len(res.Outside) == 0 && len(pinnedOutside) > 0 {
		// The tree changed between pinning and checking.
		res.Outside = append(res.Outside, fmt.Sprintf("%s is outside the writable roots of this sandbox", strings.Join(pinnedOutside, ", ")))
	}
	for _, p := range pinnedOutside {
		res.NeedApproval = appendNew(res.NeedApproval, p)
	}
	if !req.Apply || (len(res.Outside) > 0 && !req.Outside) {
		return res, nil
	}
	if len(res.Outside) > 0 {
		// Approved: exactly the paths the user saw, resolved the same way.
		for _, p := range res.NeedApproval {
			if !slices.Contains(req.ApprovedPaths, p) {
				return PatchResult{}, fmt.Errorf("%s was not approved (approved: %s): the files changed while waiting for approval", p, strings.Join(req.ApprovedPaths, ", "))
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return res, err
	}
	if err := patch.Write(changes, pins); err != nil {
		return res, err
	}
	res.Applied = true
	res.Report, res.Summary = patchReport(req.Cwd, changes), patchSummary(changes)
	return res, nil
}

// requestChanges computes the changes of a patch, or of whole-file writes.
func requestChanges(req PatchRequest) ([]patch.Change, error) {
	if len(req.Writes) > 0 {
		if req.Input != "" {
			return nil, fmt.Errorf("a request carries a patch or whole-file writes, not both")
		}
		return writeChanges(req.Writes)
	}
	p, err := patch.Parse(req.Input)
	if err != nil {
		return nil, err
	}
	return patch.Compute(p, req.Cwd)
}

// writeChanges turns whole-file writes into guarded changes: each is
// written only if the file still holds what the caller read.
func writeChanges(ws []FileWrite) ([]patch.Change, error) {
	out := make([]patch.Change, 0, len(ws))
	for _, w := range ws {
		if !filepath.IsAbs(w.Path) {
			return nil, fmt.Errorf("%s: the path must be absolute", w.Path)
		}
		c := patch.Change{Op: patch.OpAdd, Path: filepath.Clean(w.Path), New: w.Content, Added: lineCount(w.Content), Guard: true}
		if w.Old != nil {
			c.Op, c.Old, c.Removed = patch.OpUpdate, *w.Old, lineCount(*w.Old)
		}
		out = append(out, c)
	}
	return out, nil
}

// lineCount counts s's lines, a last line without a newline included.
func lineCount(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// writeRoots are the directories patches may write beneath without
// approval: the sandbox's writable roots, or everything when it is off.
func writeRoots(req PatchRequest) []string {
	if req.Policy.Mode == protocol.SandboxDangerFullAccess {
		return []string{string(filepath.Separator)}
	}
	return sandbox.WritableRoots(req.Policy, req.Cwd)
}

// patchReport lists the changed files like Codex does.
func patchReport(cwd string, changes []patch.Change) string {
	var b strings.Builder
	b.WriteString("Success. Updated the following files:")
	for _, c := range changes {
		switch {
		case c.Op == patch.OpAdd:
			fmt.Fprintf(&b, "\nA %s", DisplayPath(cwd, c.Path))
		case c.Op == patch.OpDelete:
			fmt.Fprintf(&b, "\nD %s", DisplayPath(cwd, c.Path))
		case c.MoveTo != "":
			fmt.Fprintf(&b, "\nM %s -> %s", DisplayPath(cwd, c.Path), DisplayPath(cwd, c.MoveTo))
		default:
			fmt.Fprintf(&b, "\nM %s", DisplayPath(cwd, c.Path))
		}
	}
	return b.String()
}

// patchSummary is the one-line UI summary, e.g. "patched 3 files (+12 -4)".
func patchSummary(changes []patch.Change) string {
	seen := map[string]bool{}
	added, removed := 0, 0
	for _, c := range changes {
		seen[c.Path] = true
		added += c.Added
		removed += c.Removed
	}
	noun := "files"
	if len(seen) == 1 {
		noun = "file"
	}
	return fmt.Sprintf("patched %d %s (+%d -%d)", len(seen), noun, added, removed)
}

// DisplayPath shows p relative to cwd when it is inside it.
func DisplayPath(cwd, p string) string {
	if cwd != "" {
		if r, err := filepath.Rel(cwd, p); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return r
		}
	}
	return p
}

// appendNew appends p unless list holds it.
func appendNew(list []string, p string) []string {
	if p == "" || slices.Contains(list, p) {
		return list
	}
	return append(list, p)
}
