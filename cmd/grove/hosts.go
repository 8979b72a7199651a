package main

import (
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/grovecli/grove/core/config"
	"github.com/grovecli/grove/core/execenv"
)

// newExecServerCmd is `grove exec-server`: the execution seam's protocol
// on stdin and stdout, run on a host by ssh. Commands run in this
// machine's sandbox; all of them die when stdin closes.
func newExecServerCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "exec-server",
		Short: "Serve tool calls (commands, files, patches) over stdin/stdout for a grove on another machine",
		Long: `Speak the exec-server protocol (JSON lines, versioned, see docs/architecture.md)
on stdin and stdout. A grove started with --host runs this on the host through
ssh; commands run in this machine's sandbox, and every process it started is
killed when stdin closes.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
			defer stop()
			// Session records live in the host's grove home: outside every
			// sandbox's writable roots, so no command can forge them.
			var opts execenv.ServeOptions
			if home, err := config.Home(); err == nil {
				opts.StateDir = filepath.Join(home, "exec-server")
			}
			return execenv.ServeWith(ctx, execenv.NewLocal(), cmd.InOrStdin(), cmd.OutOrStdout(), opts)
		},
	}
}
