package rollout

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// WriteError is a rollout write that failed (a full disk, an I/O error):
// Pending lines are not on disk. The file was cut back to its last whole
// line, and the lines are retried with the next write.
type WriteError struct {
	Path    string
	Pending int
	Err     error
}

func (e *WriteError) Error() string {
	return fmt.Sprintf("rollout %s: write failed, %d line(s) not recorded: %v", e.Path, e.Pending, e.Err)
}

func (e *WriteError) Unwrap() error { return e.Err }

// LockedError says another live process is writing this rollout.
type LockedError struct {
	Path string
	PID  int    // 0 when the holder could not be found
	Cmd  string // the holder's command line, when readable
}

func (e *LockedError) Error() string {
	who := "another process"
	if e.PID > 0 {
		who = "process " + strconv.Itoa(e.PID)
		if e.Cmd != "" {
			who += " (" + e.Cmd + ")"
		}
	}
	// The holder first, the long path last: a one-line status (the TUI's,
	// cut at the terminal's width) must still name who holds it.
	return fmt.Sprintf("session held: open for writing by %s; one grove at a time may continue a session: close that one, or fork this session into a new one with --fork (rollout %s)", who, e.Path)
}

// lockWriter takes the exclusive advisory lock that makes f's holder the
// rollout's only writer. It never waits: a held lock is a LockedError.
func lockWriter(f *os.File, path string) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if err == nil {
		return nil
	}
	if !errors.Is(err, syscall.EWOULDBLOCK) {
		return fmt.Errorf("lock rollout %s: %w", path, err)
	}
	le := &LockedError{Path: path}
	if st, serr := f.Stat(); serr == nil {
		if sys, ok := st.Sys().(*syscall.Stat_t); ok {
			le.PID = flockHolder(sys.Dev, sys.Ino)
		}
	}
	if le.PID > 0 {
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", le.PID)); err == nil {
			le.Cmd = strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return le
}

// flockHolder finds the pid holding a FLOCK on (dev, ino) in /proc/locks,
// whose lines read "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF".
func flockHolder(dev uint64, ino uint64) int {
	f, err := os.Open("/proc/locks")
	if err != nil {
		return 0
	}
	defer f.Close()
	major, minor := (dev>>8)&0xfff|(dev>>32)&^0xfff, dev&0xff|(dev>>12)&^0xff
	want := fmt.Sprintf("%02x:%02x:%d", major, minor, ino)
	// Some file systems (overlays) report another device in /proc/locks
	// than stat does: a lock on the same inode number is the next best.
	wantIno := fmt.Sprintf(":%d", ino)
	byIno := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[1] != "FLOCK" || !strings.HasSuffix(fields[5], wantIno) {
			continue // blocked waiters ("1: -> FLOCK …") hold nothing
		}
		pid, err := strconv.Atoi(fields[4])
		if err != nil || pid == os.Getpid() {
			continue
		}
		if fields[5] == want {
			return pid
		}
		if byIno == 0 {
			byIno = pid
		}
	}
	return byIno
}
