package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/grovecli/grove/core/app"
	"github.com/grovecli/grove/core/surface"
	"github.com/grovecli/grove/core/surface/task"
	"github.com/grovecli/grove/core/visible"
	"github.com/grovecli/grove/templates"
)

func newAgentsCmd(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{Use: "agents", Short: "Inspect agent role templates"}
	var asJSON, expanded bool
	list := &cobra.Command{
		Use:   "list",
		Short: "Show the agent roles this directory resolves to, with their source files",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(g)
			if err != nil {
				return err
			}
			cwd, err := workingDir(g)
			if err != nil {
				return err
			}
			cat := templates.Load(templates.Dirs{Cwd: cwd, GroveHome: cfg.Home, UserHome: app.UserHome(), AgentsDir: cfg.SubagentAgentsDir()}, templates.Options{ModelAliases: cfg.Agents.ModelAliases})
			return printAgents(cmd.OutOrStdout(), cmd.ErrOrStderr(), cat, cfg.Agents.Surface, asJSON, expanded)
		},
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print JSON (the list_agents shape plus source paths)")
	list.Flags().BoolVar(&expanded, "expanded", false, "include models, efforts and prompts")
	cmd.AddCommand(list)
	return cmd
}

type agentRow struct {
	AgentType       string   `json:"agent_type"`
	Description     string   `json:"description"`
	Source          string   `json:"source"`
	Scope           string   `json:"scope"`
	Format          string   `json:"format"`
	Surface         string   `json:"surface"`
	Model           string   `json:"model,omitempty"`
	ReasoningEffort string   `json:"reasoning_effort,omitempty"`
	ReadOnly        bool     `json:"read_only,omitempty"`
	AllowList       []string `json:"allow_list"`
	DenyList        []string `json:"deny_list"`
	AgentNames      []string `json:"agent_names,omitempty"`
	DefaultPrompt   string   `json:"default_prompt,omitempty"`
	Warnings        []string `json:"warnings,omitempty"`
}

func printAgents(w, errw io.Writer, cat *templates.Catalog, configured string, asJSON, expanded bool) error {
	errw = visible.NewWriter(errw) // template files are repository content
	if !asJSON {
		w = visible.NewWriter(w)
	}
	var rows []agentRow
	for _, t := range cat.All() {
		r := agentRow{
			AgentType: t.AgentType, Description: t.Description, Source: t.Source, Scope: t.Scope, Format: t.Format,
			Surface:  roleSurface(t.Surface, configured, t.Model),
			ReadOnly: t.ReadOnly, AllowList: nonNil(t.AllowList), DenyList: nonNil(t.DenyList), Warnings: t.Warnings,
		}
		for _, p := range t.Personas {
			r.AgentNames = append(r.AgentNames, p.Name)
		}
		if expanded {
			r.Model, r.ReasoningEffort, r.DefaultPrompt = t.Model, t.ReasoningEffort, t.DefaultPrompt
		}
		rows = append(rows, r)
	}
	problems := cat.Problems()
	if asJSON {
		return json.NewEncoder(w).Encode(map[string]any{"surface": configured, "agents": rows, "problems": problems})
	}
	fmt.Fprintf(w, "tool surface: %s (agents.surface); Task also offers the built-in %s\n", configured, strings.Join(task.BuiltinTypes(), ", "))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "AGENT_TYPE\tSCOPE\tSURFACE\tPERSONAS\tTOOLS\tSOURCE")
	for _, r := range rows {
		tools := "all"
		if len(r.AllowList) > 0 {
			tools = fmt.Sprintf("%d allowed", len(r.AllowList))
		}
		if len(r.DenyList) > 0 {
			tools += fmt.Sprintf(", %d denied", len(r.DenyList))
		}
		if r.ReadOnly {
			tools += ", read-only"
		}
		personas := "-"
		if len(r.AgentNames) > 0 {
			personas = fmt.Sprint(r.AgentNames)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.AgentType, r.Scope, r.Surface, personas, tools, r.Source)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if expanded {
		for _, r := range rows {
			fmt.Fprintf(w, "\n## %s — %s\nmodel: %s  reasoning_effort: %s\n", r.AgentType, r.Description, orDash(r.Model), orDash(r.ReasoningEffort))
		}
	}
	for _, r := range rows {
		for _, warn := range r.Warnings {
			fmt.Fprintf(errw, "warning: %s\n", warn)
		}
	}
	for _, p := range problems {
		fmt.Fprintf(errw, "skipped %s:%d: %s\n", p.Path, p.Line, p.Err)
	}
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// roleSurface is the surface a role's agents see: its own `surface:`, else
// the configured one (auto decides by the role's model when it names one).
func roleSurface(own, configured, model string) string {
	if own == "" {
		own = configured
	}
	if own == surface.Auto && model != "" {
		return surface.ForModel(model)
	}
	return own
}
