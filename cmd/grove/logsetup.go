package main

import (
	"fmt"
	"io"
	"log"
	"os"
	"runtime"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/grovecli/grove/core/config"
	"github.com/grovecli/grove/core/logging"
	"github.com/grovecli/grove/core/shellenv"
	"github.com/grovecli/grove/core/visible"
)

// ownsScreen reports whether cmd runs the TUI, which owns the terminal:
// nothing may be written to stderr while it runs.
func ownsScreen(cmd *cobra.Command) bool {
	return cmd.Parent() == nil || cmd.Name() == "resume"
}

// startLogging opens $GROVE_HOME/log/grove.log for this run and routes
// warnings: to the log always, and to stderr only when no TUI owns it.
// With --debug, a headless command mirrors the log to stderr.
func startLogging(cmd *cobra.Command, g *globalFlags) {
	g.warnOut = nil
	if !ownsScreen(cmd) {
		g.warnOut = visible.NewWriter(cmd.ErrOrStderr())
	}
	home, err := config.Home()
	if err != nil {
		return // the command reports it
	}
	o := logging.Options{}
	if g.debug && !ownsScreen(cmd) {
		// The mirror and the command's own stderr output interleave from
		// different goroutines: one lock keeps their lines whole.
		w := &lockedWriter{w: cmd.ErrOrStderr()}
		cmd.SetErr(w)
		g.warnOut = visible.NewWriter(w)
		o.Mirror = w
	}
	l, err := logging.Open(home, o)
	if err != nil {
		// Before the TUI starts, stderr is still ours.
		fmt.Fprintln(cmd.ErrOrStderr(), "grove: warning: debug log disabled:", err)
		return
	}
	logging.Install(l)
	if ownsScreen(cmd) {
		// Libraries that print through the standard log package would
		// write over the TUI: their lines go to the debug log instead.
		log.SetOutput(lineLogger{})
	} else {
		log.SetOutput(os.Stderr)
	}
	l.Info("start", "command", cmd.CommandPath(), "pid", os.Getpid(), "go", runtime.Version(), "debug", g.debug, "tui", ownsScreen(cmd))
}

// stopLogging closes the debug log (the process is about to exit).
func stopLogging(code int) {
	logging.L().Info("exit", "code", code)
	logging.Install(nil)
}

// warn reports a non-fatal problem: always to the debug log, and to stderr
// unless the TUI owns the screen (it reads them from the session instead).
func (g *globalFlags) warn(msg string) {
	logging.L().Warn(msg)
	if g.warnOut != nil {
		fmt.Fprintln(g.warnOut, "grove: warning:", msg)
	}
}

// registerSecrets makes sure the provider's credentials never reach the
// log, whatever their variable is called.
func registerSecrets(cfg *config.Config, apiKey string) {
	logging.AddSecret(apiKey)
	for _, p := range cfg.ModelProviders {
		logging.AddSecret(p.BearerToken)
		for _, v := range p.HTTPHeaders {
			logging.AddSecret(v)
			// "Bearer <token>": the token alone may appear elsewhere.
			if _, tok, ok := strings.Cut(v, " "); ok {
				logging.AddSecret(tok)
			}
		}
		for _, env := range p.EnvHTTPHeaders {
			logging.AddSecret(os.Getenv(env))
		}
		if p.EnvKey != "" {
			logging.AddSecret(os.Getenv(p.EnvKey))
		}
	}
	// Every variable the commands' scrub treats as a secret (by name or by
	// value: a webhook URL, a JWT, a DSN with a password) is kept out of
	// the log too.
	for _, kv := range os.Environ() {
		if name, val, ok := strings.Cut(kv, "="); ok && shellenv.IsDefaultSecret(name, val) {
			logging.AddSecret(val)
		}
	}
}

// lockedWriter serialises writes to one writer.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// lineLogger forwards standard-library log lines to the debug log.
type lineLogger struct{}

func (lineLogger) Write(p []byte) (int, error) {
	logging.L().Info("library log", "line", strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
