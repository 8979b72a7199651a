package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/grovecli/grove/core/app"
	"github.com/grovecli/grove/core/config"
	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/surface"
	"github.com/grovecli/grove/core/tools"
	"github.com/grovecli/grove/protocol"
)

func newDebugCmd(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{Use: "debug", Short: "Look inside grove: what a model is sent"}
	cmd.AddCommand(newDebugToolsCmd(g))
	return cmd
}

func newDebugToolsCmd(g *globalFlags) *cobra.Command {
	var modelName, wire string
	cmd := &cobra.Command{
		Use:   "tools",
		Short: "Print the tool specs a model would be sent, as the wire carries them",
		Long: `Print the "tools" array of a root agent's model request: the tools of
the model's family (GPT-5.x and codex models get Codex's tools; Claude
models Claude Code's; others grove's; tool_family forces one), in the form the wire sends them
(Responses: apply_patch as a freeform custom tool with its grammar, web
search as the hosted tool when web_search is on; Chat Completions: function
tools only). MCP servers' tools are not listed (they start with a session).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(g)
			if err != nil {
				return err
			}
			if modelName == "" {
				modelName = cfg.Model
			}
			if wire == "" {
				if prov, err := cfg.ResolveProvider(os.Getenv); err == nil && prov.WireAPI != "" {
					wire = prov.WireAPI
				} else {
					wire = "responses"
				}
			}
			if wire != "responses" && wire != "chat" {
				return fmt.Errorf("--wire %q: expected responses or chat", wire)
			}
			toolCfg, err := app.ToolConfig(cfg)
			if err != nil {
				return err
			}
			family, specs, err := offeredTools(cmd.Context(), cfg, modelName, toolCfg)
			if err != nil {
				return err
			}
			raw, err := model.WireTools(wire, specs)
			if err != nil {
				return err
			}
			var out bytes.Buffer
			if err := json.Indent(&out, raw, "", "  "); err != nil {
				return err
			}
			var sent []json.RawMessage
			_ = json.Unmarshal(raw, &sent)
			fmt.Fprintf(cmd.ErrOrStderr(), "model %s · tool family %s · %s wire · %d tools\n", modelName, family, wire, len(sent))
			_, err = fmt.Fprintln(cmd.OutOrStdout(), out.String())
			return err
		},
	}
	cmd.Flags().StringVarP(&modelName, "model", "m", "", "the model (default: the configured one)")
	cmd.Flags().StringVar(&wire, "wire", "", "responses or chat (default: the configured provider's wire_api)")
	return cmd
}

// offeredTools builds the session's registry and surfaces in a throwaway
// engine (its home a temporary directory, its model never called) and
// asks it what a root agent on modelName is offered.
func offeredTools(ctx context.Context, cfg *config.Config, modelName string, toolCfg tools.ToolConfig) (tools.Family, []model.ToolSpec, error) {
	home, err := os.MkdirTemp("", "grove-debug-tools-")
	if err != nil {
		return "", nil, err
	}
	defer os.RemoveAll(home)
	reg := tools.NewRegistry()
	if err := tools.RegisterAll(reg); err != nil {
		return "", nil, err
	}
	never := func(context.Context, model.Request) (model.Response, error) {
		return model.Response{}, fmt.Errorf("not called")
	}
	eng, err := engine.New(ctx, engine.Options{
		Home: home, Cwd: home, Client: model.NewScripted("debug", never), Model: modelName,
		Sandbox: protocol.SandboxPolicy{Mode: protocol.SandboxReadOnly}, ApprovalPolicy: protocol.ApprovalNever, Headless: true,
		Tools: reg, Surfaces: app.SurfaceFactories(cfg), SelectSurface: surface.Selector(cfg.Agents.Surface), ToolConfig: toolCfg,
	})
	if err != nil {
		return "", nil, err
	}
	defer eng.Shutdown(context.Background())
	return eng.OfferedTools(modelName)
}
