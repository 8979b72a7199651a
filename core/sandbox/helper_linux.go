package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"

	"github.com/grovecli/grove/protocol"
)

// MaybeRunHelper turns this process into the sandbox helper when it was
// started as one: it restricts itself with Landlock and execs the command,
// never returning. Otherwise it returns at once. main and the TestMain of
// packages that run sandboxed commands call it first.
func MaybeRunHelper() {
	if len(os.Args) < 4 || os.Args[1] != HelperArg {
		return
	}
	if err := runHelper(os.Args[2:]); err != nil {
		fmt.Fprintln(os.Stderr, "grove sandbox:", err)
		os.Exit(126)
	}
}

func runHelper(args []string) error {
	var spec helperSpec
	if err := json.Unmarshal([]byte(args[0]), &spec); err != nil {
		return fmt.Errorf("bad policy: %w", err)
	}
	if args[1] != "--" || len(args) < 3 {
		return fmt.Errorf("usage: %s POLICY -- COMMAND", HelperArg)
	}
	argv := args[2:]
	rules := []landlock.Rule{
		landlock.RODirs("/"),
		// Terminals and the null device stay usable in every mode.
		landlock.RWFiles("/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx").IgnoreIfMissing().WithIoctlDev(),
		landlock.RWDirs("/dev/pts", "/dev/shm").IgnoreIfMissing().WithIoctlDev(),
	}
	if spec.Policy.Mode == protocol.SandboxWorkspaceWrite {
		rules = append(rules, landlock.RWDirs(spec.Roots...).IgnoreIfMissing())
	}
	cfg := landlock.V5.BestEffort()
	var err error
	if spec.Policy.NetworkAccess {
		err = cfg.RestrictPaths(rules...)
	} else {
		// Handling TCP bind/connect with no net rules denies all of them.
		err = cfg.Restrict(rules...)
	}
	if err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return err
	}
	return syscall.Exec(path, argv, os.Environ())
}
