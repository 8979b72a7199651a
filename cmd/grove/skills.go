package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/grovecli/grove/core/app"
	"github.com/grovecli/grove/core/skills"
	"github.com/grovecli/grove/core/visible"
)

// discoverSkills finds the skills for a session in cwd.
var discoverSkills = app.DiscoverSkills

func newSkillsCmd(g *globalFlags) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "skills",
		Short: "List the Agent Skills found for this directory, where, and which one wins",
		Long: `List the skills (directories with a SKILL.md) grove finds, nearest first:
.agents/skills and .claude/skills in each directory from here up to the
repository root, ~/.agents/skills, $CODEX_HOME/skills (~/.codex/skills),
~/.claude/skills and /etc/codex/skills. For a name found twice the nearer
one wins. Agents see each skill's name, description and path; a skill's
body loads when you mention it as $name or the agent reads its SKILL.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if _, err := loadConfig(g); err != nil {
				return err
			}
			cwd, err := workingDir(g)
			if err != nil {
				return err
			}
			c := discoverSkills(cwd)
			if asJSON {
				out := struct {
					Skills   []skills.Skill `json:"skills"`
					Warnings []string       `json:"warnings"`
				}{append([]skills.Skill{}, c.Skills...), append([]string{}, c.Warnings...)}
				return json.NewEncoder(cmd.OutOrStdout()).Encode(out)
			}
			printSkills(cmd.OutOrStdout(), c)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the list as JSON")
	return cmd
}

func printSkills(w io.Writer, c skills.Catalog) {
	w = visible.NewWriter(w) // skill names and descriptions are repository content
	if len(c.Skills) == 0 {
		fmt.Fprintln(w, "no skills found")
	}
	for _, s := range c.Skills {
		fmt.Fprintf(w, "$%s (%s) %s\n    %s\n", s.Name, s.Scope, s.Path, s.Description)
	}
	for _, m := range c.Warnings {
		fmt.Fprintf(w, "warning: %s\n", m)
	}
}
