package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// reviewFlags are `exec review`'s own flags (codex-rs/exec/src/cli.rs
// ReviewArgs).
type reviewFlags struct {
	uncommitted  bool
	base, commit string
	title        string
}

// newExecReviewCmd is Codex's `exec review [--uncommitted | --base BRANCH
// | --commit SHA [--title T] | PROMPT]`: a headless code review. grove runs
// it as the root agent's turn with Codex's review request as the prompt
// (the agent reads the diff itself with git); exec's flags and output
// modes apply as to any exec run.
func newExecReviewCmd(g *globalFlags, f *execFlags) *cobra.Command {
	r := &reviewFlags{}
	cmd := &cobra.Command{
		Use:   "review [--uncommitted | --base BRANCH | --commit SHA [--title TITLE] | PROMPT|-]",
		Short: "Review the current repository's changes headless (uncommitted, against a base branch, or a commit)",
		Args:  cobra.MaximumNArgs(1),
	}
	fs := cmd.Flags()
	fs.BoolVar(&r.uncommitted, "uncommitted", false, "review staged, unstaged and untracked changes")
	fs.StringVar(&r.base, "base", "", "review the changes against this base BRANCH")
	fs.StringVar(&r.commit, "commit", "", "review the changes a commit SHA introduced")
	fs.StringVar(&r.title, "title", "", "the commit's title, shown in the request (with --commit)")
	cmd.RunE = func(c *cobra.Command, args []string) error {
		if len(f.clientMetadata) > 0 {
			return errors.New("--responsesapi-client-metadata is only supported for exec user turns")
		}
		custom := ""
		if len(args) == 1 {
			p, err := f.readPrompt(c, args)
			if err != nil {
				return err
			}
			custom = p
		}
		prompt, err := r.prompt(custom)
		if err != nil {
			return err
		}
		if _, err := f.mode(); err != nil {
			return err
		}
		if err := f.apply(g); err != nil {
			return err
		}
		return runExec(c.Context(), g, f, prompt, "", c.OutOrStdout(), c.ErrOrStderr())
	}
	return cmd
}

// prompt is Codex's review request for the chosen target
// (codex-rs/core/src/review_prompts.rs), with clap's conflicts.
func (r *reviewFlags) prompt(custom string) (string, error) {
	var set []string
	if r.uncommitted {
		set = append(set, "--uncommitted")
	}
	if r.base != "" {
		set = append(set, "--base <BRANCH>")
	}
	if r.commit != "" {
		set = append(set, "--commit <SHA>")
	}
	if custom != "" {
		set = append(set, "[PROMPT]")
	}
	switch {
	case len(set) > 1:
		return "", fmt.Errorf("error: the argument '%s' cannot be used with '%s'", set[0], set[1])
	case r.title != "" && r.commit == "":
		return "", errors.New("error: the argument '--title <TITLE>' requires '--commit <SHA>'")
	case r.uncommitted:
		return "Review the current code changes (staged, unstaged, and untracked files) and provide prioritized findings.", nil
	case r.base != "":
		return strings.ReplaceAll("Review the code changes against the base branch '{branch}'. Start by finding the merge diff between the current branch and {branch}'s upstream e.g. (`git merge-base HEAD \"$(git rev-parse --abbrev-ref \"{branch}@{upstream}\")\"`), then run `git diff` against that SHA to see what changes we would merge into the {branch} branch. Provide prioritized, actionable findings.", "{branch}", r.base), nil
	case r.commit != "" && r.title != "":
		return fmt.Sprintf("Review the code changes introduced by commit %s (%q). Provide prioritized, actionable findings.", r.commit, r.title), nil
	case r.commit != "":
		return fmt.Sprintf("Review the code changes introduced by commit %s. Provide prioritized, actionable findings.", r.commit), nil
	case strings.TrimSpace(custom) != "":
		return strings.TrimSpace(custom), nil
	}
	return "", errors.New("exec review: choose what to review: --uncommitted, --base BRANCH, --commit SHA, or custom review instructions")
}
