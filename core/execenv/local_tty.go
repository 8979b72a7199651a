package execenv

import (
	"context"
	"fmt"
	"os"

	"github.com/creack/pty"

	"github.com/grovecli/grove/core/sandbox"
)

// ttySize is a new terminal's size, a classic terminal's as Codex uses.
var ttySize = pty.Winsize{Rows: 24, Cols: 80}

// startTTY runs req on a pseudo-terminal made here, outside the sandbox:
// grove keeps the master (the command's output is read from it, input is
// written to it), the slave becomes the command's stdin, stdout, stderr
// and controlling terminal. The sandbox applies exactly as to a plain
// command (the seccomp filter refuses TIOCSTI on any terminal).
func startTTY(ctx context.Context, req ExecRequest) (Process, error) {
	master, slave, err := pty.Open()
	if err != nil {
		return nil, fmt.Errorf("open a pseudo-terminal: %w", err)
	}
	if err := pty.Setsize(master, &ttySize); err != nil {
		_, _ = master.Close(), slave.Close()
		return nil, fmt.Errorf("size the pseudo-terminal: %w", err)
	}
	proc, err := sandbox.Start(sandbox.StartRequest{
		Policy: req.Policy, Cwd: req.Cwd, Dir: req.Dir, DirPin: req.DirPin, Argv: req.Argv, Env: req.Env,
		Stdin: slave, Out: slave, TTY: true,
	})
	// The command holds its copies: its end closes the last one, and the
	// master then reads end of file.
	_ = slave.Close()
	if err != nil {
		_ = master.Close()
		return nil, err
	}
	return follow(ctx, proc, master, master, sandbox.WatchDenials(req.Policy, req.Output)), nil
}

// signalKeysOn reports whether the terminal turns Ctrl+C into SIGINT
// (ISIG), as it does unless the program put it in raw mode.
// The descriptor is used under the file's own reference (SyscallConn), so
// a close racing with it cannot leave the ioctl on a reused number.
func signalKeysOn(tty *os.File) bool {
	rc, err := tty.SyscallConn()
	if err != nil {
		return false
	}
	on := false
	if rc.Control(func(fd uintptr) { on = termSignals(int(fd)) }) != nil {
		return false
	}
	return on
}
