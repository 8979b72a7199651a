package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/grovecli/grove/core/config"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/tools"
	"github.com/grovecli/grove/protocol"
)

// mcpTool is one tool of one server as the model sees it.
type mcpTool struct {
	srv      *server
	raw      string // the server's name for it
	name     string // mcp__server__tool, sanitised
	spec     model.ToolSpec
	readOnly bool // annotated readOnlyHint
	// destructive is the destructiveHint (the spec's default is true).
	destructive bool
}

func newMCPTool(s *server, t *sdk.Tool) *mcpTool {
	name := sanitizeName(QualifiedName(s.name, t.Name))
	desc := t.Description
	if desc == "" {
		desc = t.Title
	}
	if desc == "" && t.Annotations != nil {
		desc = t.Annotations.Title
	}
	if desc == "" {
		desc = fmt.Sprintf("Tool %s of the MCP server %s.", t.Name, s.name)
	}
	mt := &mcpTool{srv: s, raw: t.Name, name: name, destructive: true,
		spec: model.ToolSpec{Name: name, Description: desc, Parameters: sanitizeSchema(t.InputSchema)}}
	if a := t.Annotations; a != nil {
		mt.readOnly = a.ReadOnlyHint
		if a.DestructiveHint != nil {
			mt.destructive = *a.DestructiveHint
		}
		if mt.readOnly {
			mt.destructive = false
		}
	}
	return mt
}

func (t *mcpTool) Spec() model.ToolSpec { return t.spec }

// Kind implements tools.Kinded.
func (t *mcpTool) Kind() protocol.ToolKind { return protocol.ToolKindMCP }

// AvailableIn hides tools that may change things from read-only agents.
func (t *mcpTool) AvailableIn(mode protocol.SandboxMode) bool {
	return mode != protocol.SandboxReadOnly || t.readOnly
}

// Run calls the tool (the orchestrator asked first, see Gate): tools/call
// with progress reported as events, bounded by tool_timeout_sec and
// cancelled (notifications/cancelled) when the turn is interrupted.
func (t *mcpTool) Run(ctx context.Context, env *tools.Env, raw json.RawMessage) tools.Result {
	s := t.srv
	var args map[string]any
	if err := json.Unmarshal(raw, &args); err != nil {
		return tools.Errorf("%s: arguments must be a JSON object: %v", t.name, err)
	}
	conn, err := s.current(ctx, env)
	if err != nil {
		return tools.Errorf("%s: %v", t.name, err)
	}
	timeout := s.cfg.ToolTimeout()
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	params := &sdk.CallToolParams{Name: t.raw, Arguments: args}
	token := nextProgressToken()
	params.SetProgressToken(token)
	stop := s.m.progress.watch(token, func(p *sdk.ProgressNotificationParams) {
		if env == nil || env.Emit == nil {
			return
		}
		env.Emit(protocol.NewEvent("", "", protocol.ToolProgressMsg{
			Call: protocol.ToolCall{CallID: env.CallID, Name: t.name}, Text: progressText(p)}))
	})
	defer stop()
	defer s.active.push(env)()
	res, err := conn.session.CallTool(cctx, params)
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return tools.Result{Output: fmt.Sprintf("%s: interrupted; the call was cancelled", t.name), IsError: true}
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		return tools.Errorf("%s: no result within %s (tool_timeout_sec); the call was cancelled", t.name, timeout)
	default:
		return tools.Errorf("%s: %v", t.name, err)
	}
	out, images := resultParts(res, s.m.maxOutput)
	return tools.Result{Output: out, Images: images, IsError: res.IsError, Summary: t.summary(res)}
}

// Gate applies the tool's approval mode (config.MCPServer.
// ToolApprovalMode: the tool's approval_mode, the server's
// default_tools_approval_mode, trusted, else auto). approve never asks;
// auto and writes ask for a tool not annotated read-only, prompt for
// every tool. Under auto the policy decides as before Codex had modes:
// never and on-failure run MCP tools without asking (on-failure asks only
// after a sandbox denial, and MCP servers run outside grove's sandbox);
// untrusted and on-request ask. prompt and writes ask under every policy
// (tools.decide). The request's command is the tool name.
func (t *mcpTool) Gate(_ context.Context, env *tools.Env, raw json.RawMessage) (tools.Gate, *tools.Result) {
	mode := t.srv.cfg.ToolApprovalMode(t.raw)
	switch {
	case mode == config.MCPApprovalApprove:
		return tools.Gate{}, nil
	case mode != config.MCPApprovalPrompt && t.readOnly:
		return tools.Gate{}, nil
	}
	what := "may change things"
	if t.destructive {
		what = "may make destructive changes"
	}
	why := fmt.Sprintf("MCP tool %s › %s %s (not annotated read-only); arguments: %s", t.srv.name, t.raw, what, clip(string(raw), 400))
	g := tools.Gate{
		Kind: tools.GateExternal, Name: t.name, Server: t.srv.name, RawName: t.raw,
		Request: protocol.ApprovalRequest{Kind: protocol.ApprovalExec, Command: t.name, Cwd: env.Cwd, Reason: why},
	}
	if mode != config.MCPApprovalAuto {
		g.ApprovalMode = string(mode)
		g.Request.Reason = fmt.Sprintf("MCP tool %s › %s (approval_mode = %s); arguments: %s", t.srv.name, t.raw, mode, clip(string(raw), 400))
	}
	return g, nil
}

// summary is the tool card line: server › tool → ok/error.
func (t *mcpTool) summary(res *sdk.CallToolResult) string {
	state := "ok"
	if res.IsError {
		state = "error"
	}
	return fmt.Sprintf("%s › %s → %s", t.srv.name, t.raw, state)
}

func progressText(p *sdk.ProgressNotificationParams) string {
	var b strings.Builder
	if p.Total > 0 {
		fmt.Fprintf(&b, "%g/%g", p.Progress, p.Total)
	} else {
		fmt.Fprintf(&b, "%g", p.Progress)
	}
	if p.Message != "" {
		b.WriteString(" " + p.Message)
	}
	return b.String()
}

// RunsAlone implements tools.Alone: without supports_parallel_tool_calls
// a server's call runs with no other call of its reply, as in Codex.
func (t *mcpTool) RunsAlone() bool { return !t.srv.cfg.SupportsParallelToolCalls }
