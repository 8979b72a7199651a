package sandbox

import (
	"errors"
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
// (a scan), the second line behind the read-only binds; with namespaces
// it is skipped for roots larger than maxQuarantineScan entries.

// maxQuarantineScan bounds the roots (entries) walked after every
// command with namespaces: the walk costs 4-35 µs an entry on the loaded
// 2-core development machine (8,758 entries: 73-310 ms; 72,000: 0.7 s),
// against ~4 ms for a whole sandboxed command, and there the names at the
// top of the roots are kernel-protected already. Without namespaces the
// roots are walked before every command anyway (refuseUncoverable).
const maxQuarantineScan = 5_000

// protectedState is what the helper found at its start: the protected
// paths (with namespaces bound read-only; new ones are moved) and whether
// roots are checked after each command.
type protectedState struct {
	known map[string]bool
	check bool
}

func protectedBaseline(spec helperSpec) (protectedState, error) {
	st := protectedState{known: map[string]bool{}}
	if spec.Policy.Mode != protocol.SandboxWorkspaceWrite {
		return st, nil
	}
	st.check = true
	if !spec.Namespaces {
		// Nothing is bound: the helper refused to start unless every
		// protected path was an empty directory.
		return st, nil
	}
	total := 0
	for _, r := range scannedRoots(spec.Roots) {
		paths, n, err := findProtected(r)
		if err != nil {
			return st, err
		}
		total += n
		for _, p := range paths {
			st.known[p] = true
		}
	}
	st.check = total <= maxQuarantineScan
	return st, nil
}

// quarantineNew moves every protected name in the scanned roots that is
// not in known to "<name>.grove-quarantine-N" beside it and returns one
// line per path for the command's output. A scan or move that fails is
// reported too: the user must learn of the path either way.
func quarantineNew(spec helperSpec, st protectedState) []string {
	if !st.check {
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
			if st.known[p] || !slices.Contains(ProtectedNames, filepath.Base(p)) || isEmptyDir(p) {
				continue // bound read-only, a git dir its (new) .git file names, or holding nothing
			}
			lines = append(lines, quarantine(p))
		}
	}
	return lines
}

func quarantine(p string) string {
	const why = "workspace-write keeps .git, .grove, .codex, .agents, .claude and .mcp.json read-only: a hook, agent definition or MCP server there would run outside the sandbox"
	for n := 1; n < 1000; n++ {
		to := fmt.Sprintf("%s.grove-quarantine-%d", p, n)
		if _, err := os.Lstat(to); err == nil {
			continue
		}
		err := os.Rename(p, to)
		if errors.Is(err, os.ErrPermission) {
			// The command took the write bit off the directory holding
			// it (chmod 555) to keep its plant: the user owns both.
			if st, serr := os.Stat(filepath.Dir(p)); serr == nil && os.Chmod(filepath.Dir(p), st.Mode().Perm()|0o300) == nil {
				err = os.Rename(p, to)
			}
		}
		if err != nil {
			return fmt.Sprintf("grove: this command created %s (%s) and it could not be moved aside: %v; remove it before running git or grove there", p, why, err)
		}
		return fmt.Sprintf("grove: this command created %s; %s. Moved to %s: review it before renaming it back.", p, why, to)
	}
	return fmt.Sprintf("grove: this command created %s (%s); no free quarantine name beside it: remove it before running git or grove there", p, why)
}
