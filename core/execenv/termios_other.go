//go:build !linux

package execenv

import "os"

// growPipe: the default pipe size elsewhere.
func growPipe(*os.File) {}

// termSignals: the pool helper (which needs the follow-up) is Linux-only.
func termSignals(int) bool { return false }
