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
// the sandbox; the command's output says where it went. A bare
// repository layout the command made (HEAD, objects/, refs/) loses its
// HEAD the same way. This is judged (a scan), the second line behind the
// read-only binds; it is incremental and has no size cap (rootscan.go).
// The shared temp directory is checked at its top level, where a
// session under /tmp would find a planted .git, .agents or AGENTS.md.

// protectedState is what the helper found at its start: the protected
// paths (with namespaces bound read-only; new ones are moved) and the
// scan that finds what each command adds.
type protectedState struct {
	known map[string]bool
	check bool
	scan  *rootScan
}

// tempTopNames are the names at the top of a temp root a later session
// under it would read: protected names and instruction files.
var tempTopNames = []string{"AGENTS.md", "AGENTS.override.md", "CLAUDE.md"}

func protectedBaseline(spec helperSpec) (protectedState, error) {
	st := protectedState{known: map[string]bool{}}
	if spec.Policy.Mode != protocol.SandboxWorkspaceWrite {
		return st, nil
	}
	st.check = true
	scanned := scannedRoots(spec.Roots)
	var tops []string
	for _, r := range spec.Roots {
		if !slices.Contains(scanned, r) {
			tops = append(tops, r)
		}
	}
	scan, found, err := newRootScan(scanned, tops)
	if err != nil {
		return st, err
	}
	st.scan = scan
	for _, f := range found {
		// Without namespaces nothing is bound: the helper refused to
		// start unless every protected path was an empty directory, and
		// any that fills is moved. A bare layout is the user's own.
		if spec.Namespaces || f.bare {
			st.known[f.path] = true
		}
	}
	for _, r := range tops {
		for _, n := range tempTopNames {
			if _, err := os.Lstat(filepath.Join(r, n)); err == nil {
				st.known[filepath.Join(r, n)] = true
			}
		}
	}
	return st, nil
}

// quarantineNew moves every protected name in the scanned roots that is
// not in known to "<name>.grove-quarantine-N" beside it (a new bare
// layout's HEAD, a new instruction file at the top of a temp root) and
// returns one line per path for the command's output. A scan or move
// that fails is reported too: the user must learn of the path either way.
func quarantineNew(spec helperSpec, st protectedState) []string {
	if !st.check || st.scan == nil {
		return nil
	}
	found, errs := st.scan.rescan()
	var lines []string
	for _, err := range errs {
		lines = append(lines, fmt.Sprintf("grove: could not check what this command created: %v", err))
	}
	for _, f := range found {
		switch {
		case st.known[f.path]:
		case f.bare:
			lines = append(lines, quarantineFile(filepath.Join(f.path, "HEAD"), "a bare git repository layout (HEAD, objects/, refs/) is a repository to git, whose config can run programs (core.fsmonitor, core.sshCommand, core.pager) when the user runs git there"))
		case !slices.Contains(ProtectedNames, filepath.Base(f.path)) || isEmptyDir(f.path):
			// bound read-only, a git dir its (new) .git file names, or holding nothing
		default:
			lines = append(lines, quarantine(f.path))
		}
	}
	for r := range st.scan.topsOnly {
		for _, n := range tempTopNames {
			p := filepath.Join(r, n)
			if _, err := os.Lstat(p); err == nil && !st.known[p] {
				lines = append(lines, quarantineFile(p, "instructions at the top of the temp directory would reach every later session started under it"))
			}
		}
	}
	return lines
}

// quarantineFile moves p to "<p>.grove-quarantine-N", saying why.
func quarantineFile(p, why string) string {
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
	return fmt.Sprintf("grove: this command created %s (%s); no free quarantine name beside it: remove it", p, why)
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
