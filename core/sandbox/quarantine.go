package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/grovecli/grove/protocol"
)

// A protected name a command creates where no placeholder could stand
// (below the top of a root, or anywhere on a host without user
// namespaces, where nothing can be mounted) is writable while that
// command runs. The helper looks for such names after every
// workspace-write command and moves each aside, so no later git command
// or grove start finds a hook or agent definition it would run outside
// the sandbox; the command's output says where it went. This is judged
// (a scan), the second line behind the read-only binds.

// protectedBaseline lists the protected paths of the scanned roots as the
// helper found (and, with namespaces, bound) them; new ones are moved.
func protectedBaseline(spec helperSpec) (map[string]bool, error) {
	known := map[string]bool{}
	if spec.Policy.Mode != protocol.SandboxWorkspaceWrite || !spec.Namespaces {
		// Without namespaces nothing is bound: the helper refused to
		// start unless every protected path was an empty directory.
		return known, nil
	}
	for _, r := range scannedRoots(spec.Roots) {
		paths, err := FindProtected(r)
		if err != nil {
			return nil, err
		}
		for _, p := range paths {
			known[p] = true
		}
	}
	return known, nil
}

// quarantineNew moves every protected name in the scanned roots that is
// not in known to "<name>.grove-quarantine-N" beside it and returns one
// line per path for the command's output. A scan or move that fails is
// reported too: the user must learn of the path either way.
func quarantineNew(spec helperSpec, known map[string]bool) []string {
	if spec.Policy.Mode != protocol.SandboxWorkspaceWrite {
		return nil
	}
	var lines []string
	for _, r := range scannedRoots(spec.Roots) {
		paths, err := FindProtected(r)
		if err != nil {
			lines = append(lines, fmt.Sprintf("grove: could not check what this command created: %v", err))
			continue
		}
		for _, p := range paths {
			if known[p] || !slices.Contains(ProtectedNames, filepath.Base(p)) || isEmptyDir(p) {
				continue // bound read-only, a git dir its (new) .git file names, or holding nothing
			}
			lines = append(lines, quarantine(p))
		}
	}
	return lines
}

func quarantine(p string) string {
	const why = "workspace-write keeps .git, .grove, .codex, .agents and .claude read-only: a hook or agent definition there would run outside the sandbox"
	for n := 1; n < 1000; n++ {
		to := fmt.Sprintf("%s.grove-quarantine-%d", p, n)
		if _, err := os.Lstat(to); err == nil {
			continue
		}
		if err := os.Rename(p, to); err != nil {
			return fmt.Sprintf("grove: this command created %s (%s) and it could not be moved aside: %v; remove it before running git or grove there", p, why, err)
		}
		return fmt.Sprintf("grove: this command created %s; %s. Moved to %s: review it before renaming it back.", p, why, to)
	}
	return fmt.Sprintf("grove: this command created %s (%s); no free quarantine name beside it: remove it before running git or grove there", p, why)
}
