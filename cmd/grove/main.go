// Command grove runs a tree of LLM coding agents in the terminal.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/grovecli/grove/core/logging"
	"github.com/grovecli/grove/core/sandbox"
	"github.com/grovecli/grove/core/visible"
)

func main() {
	// The sandbox helper re-execs this binary; it must run before anything else.
	sandbox.MaybeRunHelper()
	maybeRunApplyPatch()
	// Commands (escalated ones too) must not read grove's /proc files:
	// its environment holds the provider key.
	if err := sandbox.HardenProcess(); err != nil {
		fmt.Fprintln(os.Stderr, "grove:", visible.Text(err.Error()))
		os.Exit(1)
	}
	code := run()
	stopLogging(code)
	os.Exit(code)
}

// run executes the command line and returns the exit status.
func run() int {
	term := watchTermination(context.Background())
	err := newRootCmd().ExecuteContext(term.ctx)
	closeAllMCP()      // MCP servers stop with grove
	sandbox.Shutdown() // and the sandbox helpers, then their placeholders
	removeAllScratch() // and so do the demo's scratch projects
	term.Stop()
	if term.Code() != 0 {
		// SIGTERM/SIGHUP (or Ctrl+C twice) shut the run down: 128+signal.
		err = term.Err()
	}
	if err == nil {
		return 0
	}
	var ee exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintln(os.Stderr, "grove:", visible.Text(ee.msg))
		}
		return ee.code
	}
	logging.L().Error("command failed", "err", err)
	// An error may quote a path, a file's content or the model's words.
	fmt.Fprintln(os.Stderr, "grove:", visible.Text(err.Error()))
	return 1
}

// exitError carries a specific exit code out of a command.
type exitError struct {
	code int
	msg  string
}

func (e exitError) Error() string { return e.msg }
