//go:build !linux

package execenv

// termSignals: the pool helper (which needs the follow-up) is Linux-only.
func termSignals(int) bool { return false }
