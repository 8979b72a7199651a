package execenv

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// registry is an exec-server's record on its host of the session it
// serves: its own pid (with the kernel's start time, so a reused pid is
// never mistaken for it) and the commands it is running. It lives under
// the host's $GROVE_HOME, outside every sandbox's writable roots, so no
// command can forge or remove it. A later connection of the same client
// reads it to kill what a lost session left running (a stalled link, a
// SIGSTOPped server) and to say what that was. A server that ends
// cleanly removes its file.
type registry struct {
	path string

	mu       sync.Mutex
	pid      int
	start    string
	commands map[uint64]string
}

// registryRecord is the file's content.
type registryRecord struct {
	PID      int      `json:"pid"`
	Start    string   `json:"start"` // field 22 of /proc/<pid>/stat
	Commands []string `json:"commands"`
}

// sessionToken is what a client may name: no path separators, no dots.
var sessionToken = regexp.MustCompile(`^[A-Za-z0-9_-]{8,64}$`)

func registryPath(dir, token string) (string, error) {
	if dir == "" {
		return "", errors.New("this exec-server keeps no session records (no state directory)")
	}
	if !sessionToken.MatchString(token) {
		return "", fmt.Errorf("bad session token %q", token)
	}
	return filepath.Join(dir, token+".json"), nil
}

// openRegistry starts the record of this server's session.
func openRegistry(dir, token string) (*registry, error) {
	path, err := registryPath(dir, token)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("exec-server state directory: %w", err)
	}
	start, err := procStart(os.Getpid())
	if err != nil {
		return nil, err
	}
	r := &registry{path: path, pid: os.Getpid(), start: start, commands: map[uint64]string{}}
	return r, r.write()
}

func (r *registry) add(id uint64, argv []string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	r.commands[id] = strings.Join(argv, " ")
	r.mu.Unlock()
	_ = r.write()
}

func (r *registry) remove(id uint64) {
	if r == nil {
		return
	}
	r.mu.Lock()
	delete(r.commands, id)
	r.mu.Unlock()
	_ = r.write()
}

// close removes the record: the session ended cleanly.
func (r *registry) close() {
	if r != nil {
		_ = os.Remove(r.path)
	}
}

// write replaces the file atomically (temp file + rename), so a reader
// never sees half a record.
func (r *registry) write() error {
	r.mu.Lock()
	rec := registryRecord{PID: r.pid, Start: r.start, Commands: []string{}}
	for _, c := range r.commands {
		rec.Commands = append(rec.Commands, c)
	}
	r.mu.Unlock()
	b, _ := json.Marshal(rec)
	tmp := r.path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, r.path)
}

// reap kills the server of a lost session if it still runs (its sandbox
// helpers die with it: parent-death signal, PID namespace) and reports
// what it had running.
func reap(dir, token string) (reapResult, error) {
	path, err := registryPath(dir, token)
	if err != nil {
		return reapResult{}, err
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return reapResult{}, nil // ended cleanly: nothing left
	}
	if err != nil {
		return reapResult{}, err
	}
	var rec registryRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return reapResult{}, fmt.Errorf("session record %s: %w", path, err)
	}
	res := reapResult{Found: true, Commands: rec.Commands}
	killed, err := killIfSame(rec.PID, rec.Start)
	if err != nil {
		return res, err
	}
	res.Killed = killed
	_ = os.Remove(path)
	return res, nil
}

// killIfSame kills pid if it is still the process that started at start,
// and waits (at most 10 s) until it has exited. The pidfd is opened
// before the check, so a pid reused after it cannot be hit.
func killIfSame(pid int, start string) (bool, error) {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return false, nil // gone
	}
	defer unix.Close(fd)
	if s, err := procStart(pid); err != nil || s != start {
		return false, nil // another process has the pid now
	}
	if err := unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0); err != nil && !errors.Is(err, unix.ESRCH) {
		return false, fmt.Errorf("kill the lost exec-server (pid %d): %w", pid, err)
	}
	// Readable once the process has ended (a zombie until sshd reaps it
	// runs nothing); its helpers die with it.
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	_, _ = unix.Poll(fds, 10_000)
	return true, nil
}

// procStart is the start time of pid in clock ticks since boot: with the
// pid it names one process for the life of the machine.
func procStart(pid int) (string, error) {
	f, err := procStatFields(pid)
	if err != nil {
		return "", err
	}
	return f[19], nil // field 22; f starts at field 3
}

// procStatFields are /proc/<pid>/stat's fields from the third (state)
// on: the command name before them may hold spaces and parentheses.
func procStatFields(pid int) ([]string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return nil, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	return f, nil
}
