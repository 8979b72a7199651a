//go:build !linux

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
)

// MaybeRunHelper refuses to act as the sandbox helper: the helper is
// Linux-only, and Command never starts it elsewhere.
// Otherwise it returns at once.
func MaybeRunHelper() {
	if len(os.Args) < 2 || os.Args[1] != HelperArg {
		return
	}
	fmt.Fprintln(os.Stderr, "grove sandbox: sandboxing is only available on Linux")
	os.Exit(126)
}

// helperProcAttr: a new process group (no sessions or death signals here).
func helperProcAttr(bool) *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

var nsProbe struct {
	once sync.Once
	ok   bool
}

func namespacesAvailable() bool { return false }

// Stop kills the command's process group.
func Stop(cmd *exec.Cmd) error {
	if cmd == nil || cmd.Process == nil {
		return nil
	}
	return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}

// parentWatch: no pidfds here.
func parentWatch() *os.File { return nil }

// No pool helper outside Linux.
type pooledProcess struct{}

func poolSupported() bool { return false }

func warmPool(helperSpec) error { return nil }

type poolRequest struct {
	Op        string
	Argv, Env []string
	TTY       bool
	Dir       string
	DirDev    uint64
	DirIno    uint64
}

const (
	poolSignalGroup = "int"
	poolSignalInit  = "int-init"
)

func startInPool(helperSpec, poolRequest, *os.File, *os.File, *os.File) (*pooledProcess, error) {
	return nil, fmt.Errorf("sandbox: no pool helper on this system")
}

func (*pooledProcess) wait() (int, error)  { return -1, fmt.Errorf("sandbox: no pool helper") }
func (*pooledProcess) stop() error         { return nil }
func (*pooledProcess) signal(string) error { return nil }

// Shutdown: no helpers or placeholders outside Linux.
func Shutdown() {}
