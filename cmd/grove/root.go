package main

import (
	"io"

	"github.com/spf13/cobra"
)

// globalFlags are accepted by every command.
type globalFlags struct {
	overrides []string
	model     string
	cd        string
	sandbox   string
	approval  string
	profile   string
	// addDirs are extra writable roots (exec --add-dir).
	addDirs []string
	// ignoreUserConfig reads no config file (exec --ignore-user-config).
	ignoreUserConfig bool
	demo             bool
	// host runs the session's tools on a [hosts.<name>] machine.
	host  string
	debug bool
	// keepDemoDir keeps the demo's scratch project after grove exits.
	keepDemoDir bool

	// warnOut receives warnings (stderr), nil while the TUI owns the screen.
	warnOut io.Writer
}

func newRootCmd() *cobra.Command {
	g := &globalFlags{}
	root := &cobra.Command{
		Use:   "grove [PROMPT]",
		Short: "grove runs a tree of coding agents in your terminal",
		Long: `grove runs a tree of LLM coding agents on your machine: a root agent spawns
sub-agents with role templates, they run commands and patches in parallel, and
you watch, steer and approve it all live.

With no API key and no provider configured, grove runs an offline demo model.`,
		Args:          cobra.ArbitraryArgs,
		Version:       groveVersion,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRun: func(cmd *cobra.Command, _ []string) {
			startLogging(cmd, g)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTUI(cmd.Context(), g, joinPrompt(args), tuiStart{})
		},
	}
	pf := root.PersistentFlags()
	pf.StringArrayVarP(&g.overrides, "config", "c", nil, "override a config key: -c key=value (repeatable; dotted keys, TOML values)")
	pf.StringVarP(&g.model, "model", "m", "", "model to use (overrides the config key model)")
	pf.StringVarP(&g.cd, "cd", "C", "", "working directory for the session")
	pf.StringVarP(&g.sandbox, "sandbox", "s", "", "sandbox mode: read-only, workspace-write or danger-full-access")
	pf.StringVarP(&g.approval, "ask-for-approval", "a", "", "approval policy: untrusted, on-request, on-failure or never")
	pf.StringVarP(&g.profile, "profile", "p", "", "use [profiles.<name>] of config.toml (Codex's profiles)")
	pf.StringVar(&g.host, "host", "", "run the agents' tools on this [hosts.<name>] machine (ssh); model calls, approvals and rollouts stay here")
	pf.BoolVar(&g.demo, "demo", false, "run the offline demo model even if a provider is configured")
	pf.BoolVar(&g.keepDemoDir, "keep-demo-dir", false, "keep the offline demo's scratch project (removed when grove exits otherwise)")
	pf.BoolVar(&g.debug, "debug", false, "mirror the debug log ($GROVE_HOME/log/grove.log) to stderr (headless commands)")
	// `grove --version` and `grove exec --version` print "grove <version>"
	// (codex exec --version prints its own name and version too).
	root.SetVersionTemplate("grove {{.Version}}\n")
	root.AddCommand(newExecCmd(g), newResumeCmd(g), newAgentsCmd(g), newSessionsCmd(g))
	root.AddCommand(newAppServerCmd(g), newACPCmd(g))
	root.AddCommand(newMCPCmd(g), newDoctorCmd(), newExecServerCmd())
	root.AddCommand(newHooksCmd(g), newSkillsCmd(g), newDebugCmd(g))
	root.AddCommand(newArchiveCmds()...)
	return root
}

func joinPrompt(args []string) string {
	out := ""
	for i, a := range args {
		if i > 0 {
			out += " "
		}
		out += a
	}
	return out
}
