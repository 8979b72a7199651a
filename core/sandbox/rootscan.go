package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"golang.org/x/sys/unix"
)

// Issue 31.14: the check after each command used to walk every root and,
// to bound its cost, skipped roots over 5,000 entries: a nested .git with
// core.fsmonitor stayed where a command put it. rootScan checks
// incrementally instead, with no size cap: the first walk records every
// directory's change stamp; after a command only directories whose stamp
// moved are read again (a name created, removed or renamed in a
// directory changes its mtime and ctime), and a directory not seen
// before is walked whole. Kernel timestamps come from a coarse clock, so
// a directory stamped within stampSlack of the previous check is read
// again regardless.
//
// Issue 31.4: besides the protected names, a bare repository layout (a
// directory holding HEAD, objects/ and refs/, the project directory
// itself included) is git metadata: git treats such a directory as a
// repository and runs its config's core.fsmonitor, core.sshCommand,
// core.pager… when the user runs git there. One the command made is
// disarmed by moving its HEAD aside (git no longer sees a repository).

// stampSlack covers the coarse clock of file system timestamps.
const stampSlack = time.Second

// dirStamp is what a directory's inode said when it was last read.
type dirStamp struct {
	mtime, ctime unix.Timespec
	ino          uint64
}

// rootScan is the incremental state of one helper's roots.
type rootScan struct {
	dirs     map[string]dirStamp
	last     time.Time // when the previous check started
	entries  int       // seen by the first walk (bounded)
	first    bool      // the first walk runs
	topsOnly map[string]bool
}

// finding is a path a scan reports: a protected name, the git directory a
// .git file names, a hooks directory, or a bare layout (bare: the
// directory holding HEAD).
type finding struct {
	path string
	bare bool
}

func stampOf(p string) (dirStamp, bool) {
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return dirStamp{}, false
	}
	return dirStamp{mtime: st.Mtim, ctime: st.Ctim, ino: st.Ino}, true
}

// newRootScan walks roots whole (fails closed beyond maxProtectedScan
// entries: nobody would know what stays writable) and returns the scan
// state and every finding. tops are roots checked at their top level only
// (the shared temp directory: other programs' trees live below).
func newRootScan(roots, tops []string) (*rootScan, []finding, error) {
	s := &rootScan{dirs: map[string]dirStamp{}, last: time.Now(), first: true, topsOnly: map[string]bool{}}
	defer func() { s.first = false }()
	var out []finding
	for _, r := range roots {
		if err := s.visit(r, true, &out); err != nil {
			return nil, nil, fmt.Errorf("find the protected paths (.git, .grove, .codex, .agents, .claude, bare repositories) in %s: %w", r, err)
		}
	}
	for _, r := range tops {
		s.topsOnly[r] = true
		if st, ok := stampOf(r); ok {
			s.dirs[r] = st
			_ = s.readDir(r, false, &out)
		}
	}
	return s, out, nil
}

// visit records dir and reads it, walking every subdirectory (new ones
// always; known ones only when all).
func (s *rootScan) visit(dir string, all bool, out *[]finding) error {
	st, ok := stampOf(dir)
	if !ok {
		return nil // gone, or not a directory any more
	}
	s.dirs[dir] = st // stamped before reading: a later change moves it
	return s.readDir(dir, all, out)
}

func (s *rootScan) readDir(dir string, all bool, out *[]finding) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) || errors.Is(err, fs.ErrNotExist) {
			return nil // unreadable to the user: unwritable to commands too
		}
		return err
	}
	if s.entries += len(ents); s.first && s.entries > maxProtectedScan {
		return fmt.Errorf("more than %d entries", maxProtectedScan)
	}
	if isBareLayout(dir, ents) {
		*out = append(*out, finding{path: dir, bare: true})
	}
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		if slices.Contains(ProtectedNames, e.Name()) {
			*out = append(*out, protectedFindings(p, e)...)
			continue
		}
		if !e.IsDir() || s.topsOnly[dir] {
			continue
		}
		if _, known := s.dirs[p]; known && !all {
			continue // its own stamp says whether it changed
		}
		if err := s.visit(p, all, out); err != nil {
			return err
		}
	}
	return nil
}

// protectedFindings are a protected name and what a .git there names.
func protectedFindings(p string, e fs.DirEntry) []finding {
	out := []finding{{path: p}}
	if e.Name() != ".git" {
		return out
	}
	if e.Type().IsRegular() {
		if gd := gitfileTarget(p); gd != "" {
			out = append(out, finding{path: gd})
		}
	}
	if hp := hooksPath(p); hp != "" {
		out = append(out, finding{path: hp})
	}
	return out
}

// isBareLayout reports a directory git would take for a repository: a
// HEAD file with objects/ and refs/ beside it.
func isBareLayout(dir string, ents []fs.DirEntry) bool {
	var head, objects, refs bool
	for _, e := range ents {
		switch e.Name() {
		case "HEAD":
			head = e.Type().IsRegular() || e.Type()&fs.ModeSymlink != 0
		case "objects":
			objects = e.IsDir()
		case "refs":
			refs = e.IsDir()
		}
	}
	return head && objects && refs && filepath.Base(dir) != ".git"
}

// rescan reads again the directories whose stamp moved since the last
// check (and those too recent to tell) and returns what it found there.
func (s *rootScan) rescan() ([]finding, []error) {
	start := time.Now()
	slack := s.last.Add(-stampSlack)
	var out []finding
	var errs []error
	dirs := make([]string, 0, len(s.dirs))
	for d := range s.dirs {
		dirs = append(dirs, d)
	}
	for _, d := range dirs {
		old, known := s.dirs[d]
		if !known {
			continue // dropped while this loop ran
		}
		st, ok := stampOf(d)
		if !ok {
			delete(s.dirs, d)
			continue
		}
		if st == old && time.Unix(old.mtime.Unix()).Before(slack) && time.Unix(old.ctime.Unix()).Before(slack) {
			continue
		}
		s.dirs[d] = st
		if err := s.readDir(d, false, &out); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", d, err))
		}
	}
	s.last = start
	return out, errs
}
