package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/grovecli/grove/core/sandbox"
	"github.com/grovecli/grove/core/visible"
)

func newDoctorCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "say what this host's sandbox enforces, and what it loses without user namespaces",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			writeDoctor(cmd.OutOrStdout(), sandbox.Doctor())
			return nil
		},
	}
}

// writeDoctor prints the report: the kernel features, then what is
// missing (or would be, where user namespaces are forbidden).
func writeDoctor(w io.Writer, r sandbox.HostReport) {
	w = visible.NewWriter(w) // kernel error texts and paths
	fmt.Fprintln(w, "sandbox")
	if r.LandlockABI > 0 {
		what := "file access"
		if r.LandlockABI >= 4 {
			what += ", TCP connect/bind"
		}
		if r.LandlockABI >= 6 {
			what += ", signals and abstract sockets"
		}
		fmt.Fprintf(w, "  Landlock ABI %d: %s confined by the kernel\n", r.LandlockABI, what)
	} else {
		fmt.Fprintf(w, "  Landlock: unavailable (%s): read-only and workspace-write refuse to run; only danger-full-access works\n", r.LandlockErr)
	}
	switch {
	case r.Namespaces:
		fmt.Fprintln(w, "  user namespaces: available (own mount and PID namespace per command, read-only remounts, protected paths bound read-only)")
	case r.NamespacesOff:
		fmt.Fprintf(w, "  user namespaces: turned off (%s=off)\n", sandbox.NamespacesEnv)
	default:
		fmt.Fprintln(w, "  user namespaces: unavailable (kernel.unprivileged_userns_clone=0, a container, or an AppArmor/SELinux rule)")
	}
	fmt.Fprintln(w, "  always: seccomp filter (no sockets but Unix ones, no io_uring, no ptrace, no TIOCSTI), a session without a terminal, no terminal devices, no capabilities, a scrubbed environment")
	head := "without user namespaces this host would lose:"
	if !r.Namespaces {
		head = "without user namespaces this host loses:"
	}
	fmt.Fprintln(w, head)
	for _, l := range sandbox.LostWithoutNamespaces {
		fmt.Fprintln(w, "  - "+l)
	}
}
