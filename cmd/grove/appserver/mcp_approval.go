package appserver

import (
	"encoding/json"
	"fmt"

	"github.com/grovecli/grove/protocol"
)

// An MCP tool call's approval goes out as Codex asks it: an
// mcpServer/elicitation/request in form mode with an empty form, marked
// by _meta.codex_approval_kind = "mcp_tool_call" (codex-rs/core/src/
// mcp_tool_call.rs and its approval meta keys), not as a command
// approval. Its _meta.persist lists "session" only when the engine would
// remember the answer, so a client shows "Allow for this session" only
// then (Codex offers no session option in prompt and writes modes).
const (
	mcpApprovalKindKey  = "codex_approval_kind"
	mcpApprovalKindTool = "mcp_tool_call"
	mcpPersistKey       = "persist"
	mcpPersistSession   = "session"
	mcpPersistAlways    = "always"
)

// mcpApprovalParams is the elicitation that asks to approve call a.
func mcpApprovalParams(a protocol.ApprovalRequest, turnID string) map[string]any {
	meta := map[string]any{mcpApprovalKindKey: mcpApprovalKindTool, "tool_name": a.MCP.Tool}
	if a.OffersSession() {
		meta[mcpPersistKey] = []string{mcpPersistSession}
	}
	msg := fmt.Sprintf("Allow the %s MCP server to run tool %q?", a.MCP.Server, a.MCP.Tool)
	if a.Reason != "" {
		msg += "\n\n" + a.Reason // grove's why, with the arguments
	}
	var turn any
	if turnID != "" {
		turn = turnID
	}
	return map[string]any{
		"threadId": string(a.ThreadID), "turnId": turn, "serverName": a.MCP.Server,
		"mode":            "form",
		"message":         msg,
		"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{}},
		"_meta":           meta,
	}
}

// mcpApprovalDecision reads a client's answer to mcpApprovalParams as
// Codex's parse_mcp_tool_approval_elicitation_response does: accept with
// _meta.persist "session" (or "always", which grove keeps for the
// session) approves for the session, accept alone once; decline and
// cancel refuse the call without stopping the turn. A command-style
// {decision} answer is read as a command approval's.
func mcpApprovalDecision(result json.RawMessage) (protocol.ReviewDecision, error) {
	var r struct {
		Action   string          `json:"action"`
		Meta     json.RawMessage `json:"_meta"`
		Decision json.RawMessage `json:"decision"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		return "", fmt.Errorf("read MCP tool approval answer: %w", err)
	}
	if r.Action == "" && len(r.Decision) > 0 {
		return decision(r.Decision)
	}
	switch r.Action {
	case "accept":
		var meta struct {
			Persist string `json:"persist"`
		}
		_ = json.Unmarshal(r.Meta, &meta) // absent or null: approve once
		if meta.Persist == mcpPersistSession || meta.Persist == mcpPersistAlways {
			return protocol.DecisionApprovedForSession, nil
		}
		return protocol.DecisionApproved, nil
	case "decline", "cancel":
		return protocol.DecisionDenied, nil
	}
	return "", fmt.Errorf("unknown MCP tool approval action %q", r.Action)
}
