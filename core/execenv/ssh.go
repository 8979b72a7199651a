package execenv

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// SSHHost is a `[hosts.<name>]` table: where the host's exec-server is
// and how to reach it with the system ssh client (the user's config, keys,
// agent, ProxyJump and ControlMaster settings apply).
type SSHHost struct {
	Name string
	// Dest is an OpenSSH destination: a Host alias, user@host, or
	// ssh://user@host:port.
	Dest string
	// Workspace is the directory on the host standing for the session's cwd.
	Workspace string
	// GrovePath is grove on the host (default: grove on its PATH).
	GrovePath string
	// Args are extra ssh arguments (e.g. -F a config file, -i a key).
	Args []string
}

// controlDir holds the ControlMaster sockets: one multiplexed connection
// per host, shared by every command and every grove of this user.
func controlDir() (string, error) {
	base := os.TempDir()
	if len(base) > 30 {
		// A socket path must fit in a sockaddr_un (108 bytes) with the
		// 40-character %C and ssh's 17-character temporary suffix after it.
		base = "/tmp"
	}
	dir := filepath.Join(base, fmt.Sprintf("grove-ssh-%d", os.Getuid()))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("ssh control directory: %w", err)
	}
	return dir, nil
}

// sshArgs are the arguments of ssh for one exec-server session (or, with
// op, a control command such as -O exit).
func (h SSHHost) sshArgs(dir string, op ...string) []string {
	return h.sshArgsOn(dir, "%C", op...)
}

// sshArgsOn is sshArgs with the control socket named control (in dir).
func (h SSHHost) sshArgsOn(dir, control string, op ...string) []string {
	args := append([]string{}, h.Args...)
	args = append(args, "-T",
		"-o", "BatchMode=yes", // never prompt: grove owns the terminal
		"-o", "ConnectTimeout=15",
		"-o", "ServerAliveInterval=15",
		"-o", "ServerAliveCountMax=2",
		"-o", "ControlMaster=auto",
		"-o", "ControlPath="+filepath.Join(dir, control),
		"-o", "ControlPersist=60")
	args = append(args, op...)
	grove := h.GrovePath
	if grove == "" {
		grove = "grove"
	}
	args = append(args, "--", h.Dest)
	if len(op) == 0 {
		args = append(args, shellQuote(grove), "exec-server")
	}
	return args
}

// shellQuote quotes s for the remote shell ssh hands the command to.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// DialSSH returns a Dial that runs `grove exec-server` on the host through
// the system ssh client.
func DialSSH(h SSHHost) Dial {
	// stalled counts links found stalled: each moves this grove's next
	// sessions to a new ControlMaster, since a new session multiplexed on
	// a master that stopped answering would hang with it.
	var stalled atomic.Int32
	return func(ctx context.Context) (Transport, error) {
		dir, err := controlDir()
		if err != nil {
			return nil, err
		}
		// A suffix of at most three characters: the socket path must
		// still fit a sockaddr_un (controlDir).
		control := "%C"
		if n := stalled.Load(); n > 0 {
			control = fmt.Sprintf("%%C%x", n%0x1000)
		}
		cmd := exec.Command("ssh", h.sshArgsOn(dir, control)...)
		cmd.Env = sshEnv(os.Environ())
		// stderr goes to an unlinked file, not a pipe: a master connection
		// ssh leaves behind may hold it, and Wait must not wait for that.
		stderr, err := os.CreateTemp("", "grove-ssh-stderr-")
		if err != nil {
			return nil, fmt.Errorf("ssh stderr file: %w", err)
		}
		_ = os.Remove(stderr.Name())
		t := &sshTransport{cmd: cmd, stderr: stderr, exited: make(chan struct{}), stalled: &stalled}
		cmd.Stderr = stderr
		if t.stdin, err = cmd.StdinPipe(); err != nil {
			_ = stderr.Close()
			return nil, err
		}
		if t.stdout, err = cmd.StdoutPipe(); err != nil {
			_ = stderr.Close()
			return nil, err
		}
		if err := cmd.Start(); err != nil {
			_ = stderr.Close()
			return nil, fmt.Errorf("start ssh: %w", err)
		}
		go func() { // reaps ssh; Close waits for it
			_ = cmd.Wait()
			close(t.exited)
		}()
		return t, nil
	}
}

// StopSSH ends the host's shared connection (its master), if one runs.
func StopSSH(h SSHHost) error {
	dir, err := controlDir()
	if err != nil {
		return err
	}
	stop := exec.Command("ssh", h.sshArgs(dir, "-O", "exit")...)
	stop.Env = sshEnv(os.Environ())
	out, err := stop.CombinedOutput()
	if err != nil {
		return fmt.Errorf("ssh -O exit %s: %v: %s", h.Dest, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// sshTransport is one ssh process: its stdin and stdout are the stream.
type sshTransport struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser
	stderr *os.File
	exited chan struct{}
	once   sync.Once
	// stalled is the dialer's count of stalled links (Abandon).
	stalled *atomic.Int32
	abandon sync.Once
}

// Abandon marks the link stalled: the dialer's next ssh starts its own
// ControlMaster.
func (t *sshTransport) Abandon() {
	t.abandon.Do(func() { t.stalled.Add(1) })
}

func (t *sshTransport) Read(p []byte) (int, error)  { return t.stdout.Read(p) }
func (t *sshTransport) Write(p []byte) (int, error) { return t.stdin.Write(p) }

// Why is the end of what ssh said on stderr, once it has exited.
func (t *sshTransport) Why() string {
	select {
	case <-t.exited:
	case <-time.After(2 * time.Second): // ssh closed its stdout but lingers
	}
	st, err := t.stderr.Stat()
	if err != nil {
		return ""
	}
	off := max(st.Size()-2048, 0)
	b := make([]byte, st.Size()-off)
	n, _ := t.stderr.ReadAt(b, off)
	return strings.TrimSpace(string(b[:n]))
}

// Close closes ssh's stdin (the server sees EOF and kills what it
// started), then ends ssh if it does not exit by itself.
func (t *sshTransport) Close() error {
	t.once.Do(func() {
		_ = t.stdin.Close()
		select {
		case <-t.exited:
		case <-time.After(5 * time.Second):
			_ = t.cmd.Process.Kill()
			<-t.exited
		}
		_ = t.stderr.Close()
	})
	return nil
}

var errNoSSH = errors.New("no ssh client on PATH")

// CheckSSH reports whether the system ssh client exists.
func CheckSSH() error {
	if _, err := exec.LookPath("ssh"); err != nil {
		return errNoSSH
	}
	return nil
}

// ReleaseSSH asks the host's shared connections (its masters: the one
// at %C and those a stalled link moved to, %C1…) to accept no new
// sessions, so that each exits once its last session ends instead of
// lingering ControlPersist seconds: what a closing grove session does
// with the masters it used. Sessions of other groves on them go on;
// their next dial starts a new master. No master running is no error.
func ReleaseSSH(h SSHHost) error {
	dir, err := controlDir()
	if err != nil {
		return err
	}
	// ssh -G expands %C: the socket names to look for.
	g := exec.Command("ssh", h.sshArgs(dir, "-G")...)
	g.Env = sshEnv(os.Environ())
	out, err := g.Output()
	if err != nil {
		return fmt.Errorf("ssh -G %s: %w", h.Dest, err)
	}
	base := ""
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(line, "controlpath "); ok {
			base = filepath.Base(strings.TrimSpace(v))
		}
	}
	ents, err := os.ReadDir(dir)
	if base == "" || err != nil {
		return err
	}
	var errs []error
	for _, e := range ents {
		if rest, ok := strings.CutPrefix(e.Name(), base); !ok || len(rest) > 3 {
			continue
		}
		stop := exec.Command("ssh", h.sshArgsOn(dir, e.Name(), "-O", "stop")...)
		stop.Env = sshEnv(os.Environ())
		if out, err := stop.CombinedOutput(); err != nil && !strings.Contains(string(out), "No such file") && !strings.Contains(string(out), "Connection refused") {
			errs = append(errs, fmt.Errorf("ssh -O stop %s: %v: %s", h.Dest, err, strings.TrimSpace(string(out))))
		}
	}
	return errors.Join(errs...)
}
