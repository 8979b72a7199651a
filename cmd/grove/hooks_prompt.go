package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/charmbracelet/x/term"

	"github.com/grovecli/grove/core/hooks"
	"github.com/grovecli/grove/core/visible"
)

// reviewHooksBeforeTUI asks once, before the full screen starts, whether
// to trust the hooks found here that were never reviewed or changed since,
// showing each command. Yes records the review (grove hooks trust); no
// leaves them skipped for this session (and asks again next time). Not a
// terminal: nothing is asked and they stay skipped.
func reviewHooksBeforeTUI(g *globalFlags, in *os.File, out io.Writer) {
	if !term.IsTerminal(in.Fd()) {
		return
	}
	set, cfg, err := loadHookSet(g)
	if err != nil {
		return // newSession reports the same error
	}
	askHookReview(set.NeedsReview(), filepath.Join(cfg.Home, "config.toml"), in, out)
}

// askHookReview is the question itself (separate for tests).
func askHookReview(pending []hooks.Hook, configPath string, in io.Reader, out io.Writer) bool {
	if len(pending) == 0 {
		return false
	}
	// The commands come from hook files a repository (and so a model) may
	// have written: `\r\x1b[K` must not erase what is being trusted.
	out = visible.NewWriter(out)
	fmt.Fprintf(out, "grove found %d hook(s) that would run commands as you, outside the sandbox, and were not reviewed:\n%s", len(pending), hookSummary(pending))
	fmt.Fprint(out, "Trust them (recorded in "+configPath+")? [y/N] ")
	line, _ := bufio.NewReader(in).ReadString('\n')
	if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
		fmt.Fprintln(out, "Not trusted: they are skipped this session (grove hooks trust reviews them later).")
		return false
	}
	if err := hooks.RecordTrust(configPath, pending); err != nil {
		fmt.Fprintf(out, "grove: %v\n", err)
		return false
	}
	return true
}
