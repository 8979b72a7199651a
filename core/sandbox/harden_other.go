//go:build !linux

package sandbox

// NamespacesEnv: see harden_linux.go (no namespaces outside Linux).
const NamespacesEnv = "GROVE_SANDBOX_NAMESPACES"

// HardenProcess has nothing to do outside Linux.
func HardenProcess() error { return nil }

func namespacesDisabled() bool { return false }
