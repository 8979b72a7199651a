package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/grovecli/grove/rollout"
)

// lastFlag is `--last`. It remembers how many positional arguments came
// before it: Codex (clap) refuses `resume ID --last` ("cannot be used
// with") but reads `resume --last PROMPT` as a prompt.
type lastFlag struct {
	set    bool
	before int
	// fss are the flag sets that may parse it (exec's and exec resume's);
	// only the one parsing has arguments.
	fss []*pflag.FlagSet
}

func (l *lastFlag) String() string { return fmt.Sprint(l.set) }
func (l *lastFlag) Type() string   { return "bool" }
func (l *lastFlag) IsBoolFlag() bool {
	return true
}

func (l *lastFlag) Set(v string) error {
	l.set = v == "true"
	for _, fs := range l.fss {
		l.before = max(l.before, len(fs.Args()))
	}
	return nil
}

// registerResume adds --last and --all to exec (and so to exec resume),
// as Codex's `exec PROMPT resume --last` takes them after the subcommand
// word that cobra sees as an argument.
func (f *execFlags) registerResume(cmd *cobra.Command, g *globalFlags) {
	fs := cmd.PersistentFlags()
	fl := fs.VarPF(&f.resumeLast, "last", "", "with resume: the most recent session of the current directory")
	fl.NoOptDefVal = "true"
	fs.BoolVar(&f.resumeAll, "all", false, "with resume --last: the most recent session of any directory")
	resume := newExecResumeCmd(g, f)
	cmd.AddCommand(resume)
	f.resumeLast.fss = []*pflag.FlagSet{cmd.Flags(), resume.Flags()}
}

// newExecResumeCmd is `exec resume [--last [--all] | ID] [PROMPT|-]`
// (Codex's shape: with --last, a lone positional is the prompt).
func newExecResumeCmd(g *globalFlags, f *execFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "resume [--last [--all] | ID] [PROMPT|-]",
		Short: "Continue a past session headless (by id, or the most recent of this directory with --last)",
		Args:  cobra.MaximumNArgs(2),
		// The flags are parsed with exec's; its global flags are the parent's.
	}
	cmd.RunE = func(c *cobra.Command, args []string) error {
		return execResume(c, g, f, args, nil)
	}
	return cmd
}

// resumeWordAt finds Codex's `exec PROMPT resume …` form: the word resume
// right after a single prompt argument (clap takes one PROMPT before the
// subcommand). -1 when absent.
func resumeWordAt(args []string) int {
	if len(args) >= 2 && args[1] == "resume" {
		return 1
	}
	return -1
}

// execResume resolves the session of `exec resume` (or `exec PROMPT
// resume`) and runs the turn. outer is the prompt given before the word
// resume.
func execResume(cmd *cobra.Command, g *globalFlags, f *execFlags, args, outer []string) error {
	if len(outer) > 0 {
		// exec's flag set counted the prompt and the word resume.
		f.resumeLast.before = max(f.resumeLast.before-len(outer)-1, 0)
	}
	id, promptArgs, err := resumeTarget(g, f, args)
	if err != nil {
		return err
	}
	if len(outer) > 0 {
		if len(promptArgs) > 0 {
			return errors.New("the prompt is given twice: before `resume` and after it; give it once")
		}
		promptArgs = outer
	}
	if err := checkSessionExists(g, id); err != nil {
		return err
	}
	return execCommand(cmd, g, f, promptArgs, id)
}

// resumeTarget is the session id and the prompt arguments of a resume's
// positionals, with Codex's conflicts.
func resumeTarget(g *globalFlags, f *execFlags, args []string) (string, []string, error) {
	last := f.resumeLast.set
	if f.resumeAll && !last {
		return "", nil, errors.New("error: the argument '--all' requires '--last'")
	}
	switch {
	case last && (f.resumeLast.before > 0 || len(args) == 2):
		return "", nil, errors.New("error: the argument '--last' cannot be used with '[SESSION_ID]'")
	case last:
		cfg, err := loadConfig(g)
		if err != nil {
			return "", nil, err
		}
		var e rollout.IndexEntry
		if f.resumeAll {
			e, err = rollout.LastSession(cfg.Home)
		} else {
			dir, derr := workingDir(g)
			if derr != nil {
				return "", nil, derr
			}
			e, err = rollout.LastSessionIn(cfg.Home, dir)
		}
		if err != nil {
			return "", nil, fmt.Errorf("exec resume --last: %w", err)
		}
		return string(e.ID), args, nil
	case len(args) == 0:
		return "", nil, errors.New("exec resume: give a session id, or --last for the most recent session of this directory")
	}
	return args[0], args[1:], nil
}

// checkSessionExists names a session that is not there in Codex's words.
func checkSessionExists(g *globalFlags, id string) error {
	cfg, err := loadConfig(g)
	if err != nil {
		return err
	}
	if _, err := rollout.FindSession(cfg.Home, id); err != nil {
		//lint:ignore ST1005 Codex's exact message (codex-rs/exec), which scripts match
		return fmt.Errorf("No saved session found with ID %s: %w", id, err)
	}
	return nil
}
