package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/grovecli/grove/core/config"
	"github.com/grovecli/grove/core/visible"
	"github.com/grovecli/grove/rollout"
	"github.com/grovecli/grove/tui"
)

func newSessionsCmd(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{Use: "sessions", Short: "Inspect past sessions"}
	var asJSON bool
	var limit, offset int
	list := &cobra.Command{
		Use:   "list",
		Short: "List past sessions, newest first (from the session index)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			home, err := config.Home()
			if err != nil {
				return err
			}
			entries, more, err := rollout.ListSessions(home, offset, limit)
			if err != nil {
				return err
			}
			return printSessions(cmd.OutOrStdout(), entries, more, asJSON, time.Now())
		},
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print JSON lines, one session each")
	list.Flags().IntVarP(&limit, "limit", "n", 50, "how many sessions")
	list.Flags().IntVar(&offset, "offset", 0, "skip this many newest sessions")
	cmd.AddCommand(list, newReindexCmd())
	return cmd
}

// newReindexCmd rebuilds the session index from the rollouts under
// $GROVE_HOME/sessions (the index is a cache of them).
func newReindexCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "reindex",
		Short: "Rebuild the session index from the rollout files (after a restore, a lost or damaged index)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			home, err := config.Home()
			if err != nil {
				return err
			}
			rep, err := rollout.Reindex(home, true)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "%d rollouts in %s/sessions; the index listed %d; %d recovered, %d relocated\n",
				rep.Rollouts, home, rep.Listed, rep.Added, rep.Relocated)
			for _, s := range rep.Skipped {
				fmt.Fprintf(w, "skipped %s\n", s)
			}
			return nil
		},
	}
}

func printSessions(w io.Writer, entries []rollout.IndexEntry, more, asJSON bool, now time.Time) error {
	if asJSON {
		enc := json.NewEncoder(w)
		for _, e := range entries {
			if err := enc.Encode(e); err != nil {
				return err
			}
		}
		return nil
	}
	if len(entries) == 0 {
		fmt.Fprintln(w, "no sessions yet: run `grove` or `grove exec \"…\"` to start one")
		return nil
	}
	// The prompt, note and cwd are the model's and the user's words.
	tw := tabwriter.NewWriter(visible.NewWriter(w), 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tUPDATED\tAGENTS\tCWD\tPROMPT / NOTE")
	for _, e := range entries {
		title := e.ThreadName
		if title == "" {
			title = e.FirstPrompt
		}
		if e.Note != "" {
			title += " — " + e.Note
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", e.ID.Short(), tui.Ago(now.Sub(e.UpdatedAt)), e.ChildCount, e.Cwd, clip(title, 70))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if more {
		fmt.Fprintln(w, strings.Repeat(" ", 0)+"… more: use --offset to page")
	}
	return nil
}
