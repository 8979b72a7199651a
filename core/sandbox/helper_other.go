//go:build !linux

package sandbox

import (
	"fmt"
	"os"
)

// MaybeRunHelper refuses to act as the sandbox helper: Landlock is
// Linux-only, and Command never starts the helper where Supported fails.
// Otherwise it returns at once.
func MaybeRunHelper() {
	if len(os.Args) < 2 || os.Args[1] != HelperArg {
		return
	}
	fmt.Fprintln(os.Stderr, "grove sandbox: Landlock sandboxing is only available on Linux")
	os.Exit(126)
}
