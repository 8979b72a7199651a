// Command grove runs a tree of LLM coding agents in the terminal.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/grovecli/grove/core/sandbox"
)

func main() {
	// The sandbox helper re-execs this binary; it must run before anything else.
	sandbox.MaybeRunHelper()
	err := newRootCmd().Execute()
	closeAllMCP() // MCP servers stop with grove
	if err != nil {
		var ee exitError
		if errors.As(err, &ee) {
			if ee.msg != "" {
				fmt.Fprintln(os.Stderr, "grove:", ee.msg)
			}
			os.Exit(ee.code)
		}
		fmt.Fprintln(os.Stderr, "grove:", err)
		os.Exit(1)
	}
}

// exitError carries a specific exit code out of a command.
type exitError struct {
	code int
	msg  string
}

func (e exitError) Error() string { return e.msg }
