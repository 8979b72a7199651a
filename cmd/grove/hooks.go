package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/grovecli/grove/core/app"
	"github.com/grovecli/grove/core/config"
	"github.com/grovecli/grove/core/hooks"
	"github.com/grovecli/grove/core/visible"
)

// reportHooks says, for a headless run, which hooks were skipped and why
// (naming each file) and what could not be read. Never silent.
func reportHooks(w io.Writer, set hooks.Set, bypass bool) {
	w = visible.NewWriter(w) // commands and paths come from hook files
	for _, m := range set.Warnings {
		fmt.Fprintf(w, "grove: hooks: %s\n", m)
	}
	for _, h := range set.Skipped(bypass) {
		fmt.Fprintf(w, "grove: hook skipped: %s %q in %s: %s\n", h.Event, h.Command, h.File, h.Trust.Reason())
	}
	if bypass {
		for _, h := range set.Active(true) {
			if h.Trust == hooks.TrustUntrusted || h.Trust == hooks.TrustModified {
				fmt.Fprintf(w, "grove: hook runs unreviewed (--dangerously-bypass-hook-trust): %s %q in %s\n", h.Event, h.Command, h.File)
			}
		}
	}
}

func newHooksCmd(g *globalFlags) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "hooks",
		Short: "List the hooks found for this directory, where, and whether they run",
		Long: `List every hook grove finds for the working directory: /etc/codex (managed),
$GROVE_HOME/hooks.json and config.toml [hooks], $CODEX_HOME (~/.codex)
hooks.json and config.toml, ~/.claude/settings.json, and in the project
(from its root down to here) .grove/hooks.json, .codex/hooks.json,
.codex/config.toml, .claude/settings.json and .claude/settings.local.json.

A project's hooks load only when the project is trusted
([projects."<root>"] trust_level = "trusted" in config.toml); other hooks
that are not managed run once reviewed: see "grove hooks trust".`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			set, _, err := loadHookSet(g)
			if err != nil {
				return err
			}
			if asJSON {
				return json.NewEncoder(cmd.OutOrStdout()).Encode(hookRows(set))
			}
			printHooks(cmd.OutOrStdout(), set)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the list as JSON")
	cmd.AddCommand(newHooksTrustCmd(g))
	return cmd
}

func loadHookSet(g *globalFlags) (hooks.Set, *config.Config, error) {
	cfg, err := loadConfig(g)
	if err != nil {
		return hooks.Set{}, nil, err
	}
	cwd, err := workingDir(g)
	if err != nil {
		return hooks.Set{}, nil, err
	}
	set, err := app.DiscoverHooks(cfg, cwd)
	return set, cfg, err
}

type hookRow struct {
	Event   string `json:"event"`
	Matcher string `json:"matcher,omitempty"`
	Command string `json:"command"`
	Timeout int64  `json:"timeout_sec"`
	File    string `json:"file"`
	Scope   string `json:"scope"`
	Key     string `json:"key"`
	Hash    string `json:"hash"`
	Trust   string `json:"trust"`
	Runs    bool   `json:"runs"`
	Reason  string `json:"reason,omitempty"`
}

func hookRows(set hooks.Set) []hookRow {
	rows := []hookRow{}
	for _, h := range set.Hooks {
		r := hookRow{Event: string(h.Event), Command: h.Command, Timeout: int64(h.Timeout.Seconds()), File: h.File,
			Scope: string(h.Scope), Key: h.Key, Hash: h.Hash, Trust: string(h.Trust), Runs: h.Trust.Runs(false), Reason: h.Trust.Reason()}
		if h.Matcher != nil {
			r.Matcher = *h.Matcher
		}
		rows = append(rows, r)
	}
	return rows
}

func printHooks(w io.Writer, set hooks.Set) {
	w = visible.NewWriter(w) // commands, matchers and paths come from hook files
	if len(set.Hooks) == 0 {
		fmt.Fprintln(w, "no hooks found")
	}
	file := ""
	for _, h := range set.Hooks {
		if h.File != file {
			file = h.File
			fmt.Fprintf(w, "%s (%s)\n", file, h.Scope)
		}
		m := ""
		if h.Matcher != nil && *h.Matcher != "" {
			m = " [" + *h.Matcher + "]"
		}
		state := string(h.Trust)
		if h.Trust.Runs(false) {
			state += ", runs"
		} else {
			state += ", skipped: " + h.Trust.Reason()
		}
		fmt.Fprintf(w, "  %s%s: %s (timeout %s; %s)\n", h.Event, m, h.Command, h.Timeout, state)
	}
	for _, m := range set.Warnings {
		fmt.Fprintf(w, "warning: %s\n", m)
	}
}

func newHooksTrustCmd(g *globalFlags) *cobra.Command {
	var all bool
	cmd := &cobra.Command{
		Use:   "trust [--all | KEY...]",
		Short: "Record a review of hooks (by hash, in config.toml [hooks.state])",
		Long: `Record that you reviewed hooks: their current hash goes into
$GROVE_HOME/config.toml under [hooks.state."<key>"] trusted_hash, as Codex
keeps it. A hook that changes afterwards is skipped until reviewed again.
KEY is a hook's key as "grove hooks --json" prints it; --all reviews every
unreviewed or changed hook listed by "grove hooks". A project's hooks also
need the project trusted ([projects."<root>"] trust_level = "trusted").`,
		RunE: func(cmd *cobra.Command, args []string) error {
			set, cfg, err := loadHookSet(g)
			if err != nil {
				return err
			}
			pick, err := pickHooks(set, args, all)
			if err != nil {
				return err
			}
			path := filepath.Join(cfg.Home, "config.toml")
			if err := hooks.RecordTrust(path, pick); err != nil {
				return err
			}
			for _, h := range pick {
				fmt.Fprintf(visible.NewWriter(cmd.OutOrStdout()), "trusted: %s %q (%s)\n", h.Event, h.Command, h.File)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "recorded %d review(s) in %s\n", len(pick), path)
			return nil
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "review every unreviewed or changed hook")
	return cmd
}

func pickHooks(set hooks.Set, keys []string, all bool) ([]hooks.Hook, error) {
	if all == (len(keys) > 0) {
		return nil, fmt.Errorf("name hooks by key, or pass --all (not both)")
	}
	if all {
		pick := set.NeedsReview()
		if len(pick) == 0 {
			return nil, fmt.Errorf("no hook needs a review here (see grove hooks)")
		}
		return pick, nil
	}
	var pick []hooks.Hook
	for _, k := range keys {
		found := false
		for _, h := range set.Hooks {
			if h.Key == k {
				if h.Trust == hooks.TrustProjectUntrusted {
					return nil, fmt.Errorf("hook %s: %s", k, h.Trust.Reason())
				}
				pick, found = append(pick, h), true
			}
		}
		if !found {
			return nil, fmt.Errorf("no hook with key %q here (keys: grove hooks --json)", k)
		}
	}
	return pick, nil
}

// hookSummary is one line per hook for a trust prompt.
func hookSummary(hs []hooks.Hook) string {
	var b strings.Builder
	for _, h := range hs {
		fmt.Fprintf(&b, "  %s (%s) in %s:\n    %s\n", h.Event, h.Trust, h.File, h.Command)
	}
	return b.String()
}
