package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/grovecli/grove/core/config"
	"github.com/grovecli/grove/rollout"
)

// newArchiveCmds are `grove archive` and `grove unarchive` (Codex's
// `codex archive`/`codex unarchive`): a session's rollouts and its
// sub-agents' move into $GROVE_HOME/archived_sessions and back, as the
// app-server's thread/archive does. An archived session is out of the
// picker, `grove sessions list` and --last, and is not resumed until
// unarchived.
func newArchiveCmds() []*cobra.Command {
	cmd := func(use, short string, archive bool) *cobra.Command {
		return &cobra.Command{
			Use: use + " SESSION_ID", Short: short, Args: cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				home, err := config.Home()
				if err != nil {
					return err
				}
				e, err := rollout.FindSession(home, args[0])
				if err != nil {
					return err
				}
				if e.ParentID != "" {
					return fmt.Errorf("%s is a sub-agent of %s: %s its root session", e.ID, e.ParentID, use)
				}
				move := rollout.Unarchive
				if archive {
					move = rollout.Archive
				}
				moved, err := move(home, e.ID)
				if err != nil {
					return fmt.Errorf("%s %s: %w", use, e.ID, err)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%sd %s (%d rollout(s))\n", use, e.ID, len(moved))
				return nil
			},
		}
	}
	return []*cobra.Command{
		cmd("archive", "Archive a past session: its rollouts move to $GROVE_HOME/archived_sessions", true),
		cmd("unarchive", "Bring an archived session back to $GROVE_HOME/sessions", false),
	}
}
