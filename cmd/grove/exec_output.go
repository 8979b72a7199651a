package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/grovecli/grove/core/app"
	"github.com/grovecli/grove/core/config"
	"github.com/grovecli/grove/core/mcp"
	"github.com/grovecli/grove/core/tools"
	"github.com/grovecli/grove/protocol"
)

// printExecHeader writes Codex's exec summary to stderr (human mode):
// where the session runs and under which settings, so a CI log says what
// the run was allowed to do.
func printExecHeader(w io.Writer, s *app.Session, root protocol.ThreadID) {
	cfg := s.Config()
	effort := cfg.ReasoningEffort
	if effort == "" {
		effort = "none"
	}
	fmt.Fprintf(w, "grove v%s (Codex-compatible exec)\n--------\n", groveVersion)
	fmt.Fprintf(w, "workdir: %s\nmodel: %s\nprovider: %s\napproval: %s\nsandbox: %s\nreasoning effort: %s\nsession id: %s\n--------\n",
		printable(s.Cwd()), printable(s.Provider().Model), s.Provider().Name, cfg.ApprovalPolicy, sandboxLabel(cfg), effort, root)
}

func sandboxLabel(cfg *config.Config) string {
	p := cfg.SandboxPolicy()
	if p.Mode == protocol.SandboxWorkspaceWrite && p.NetworkAccess {
		return string(p.Mode) + " (network access enabled)"
	}
	return string(p.Mode)
}

// stopForGoneReader ends a session whose stdout reader went away: the turn
// is interrupted (recorded, resumable), the tree shuts down, and exec
// exits 0 as Codex does when its JSONL consumer stops reading.
func stopForGoneReader(s *app.Session) error {
	_ = s.Engine().Submit(protocol.Op{Type: protocol.OpInterrupt, ThreadID: s.Root()})
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		for range s.Events() {
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	closeExec(s, ctx, "stdout closed")
	<-drained
	return nil
}

// printable replaces control characters (a directory or model name could
// carry escape sequences) before they reach a terminal.
func printable(v string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return '?'
		}
		return r
	}, v)
}

// startRequiredMCP starts the MCP servers marked required = true before
// the first turn and fails exec (exit 1) naming each one that did not
// start, as Codex does: a CI job must not pass without its tools.
func startRequiredMCP(ctx context.Context, s *app.Session) error {
	var required []string
	cfg, mgr := s.Config(), s.MCP()
	for name, c := range cfg.MCPServers {
		if c.Required && c.IsEnabled() {
			required = append(required, name)
		}
	}
	if len(required) == 0 || mgr == nil {
		return nil
	}
	sort.Strings(required)
	mgr.Tools(ctx, &tools.Env{Cwd: s.Cwd(), Sandbox: cfg.SandboxPolicy(), ApprovalPolicy: cfg.ApprovalPolicy})
	states := map[string]mcp.ServerStatus{}
	for _, st := range mgr.Status() {
		states[st.Name] = st
	}
	var names, why []string
	for _, name := range required {
		if st := states[name]; st.State != mcp.StateReady {
			cause := st.Error
			if cause == "" {
				cause = string(st.State)
			}
			names = append(names, name)
			why = append(why, fmt.Sprintf("MCP server `%s` is required but failed to start: %s", name, printable(cause)))
		}
	}
	if len(names) > 0 {
		// Codex's line first (scripts match it), then each cause.
		msg := "required MCP servers failed to initialize: " + strings.Join(names, ", ") + "\n" + strings.Join(why, "\n")
		return exitError{code: 1, msg: msg}
	}
	return nil
}
