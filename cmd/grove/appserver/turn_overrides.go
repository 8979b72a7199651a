package appserver

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/grovecli/grove/core/app"
	"github.com/grovecli/grove/protocol"
)

// turnOverrides reads turn/start's overrides (the wire forms here, the
// values by app.CheckTurnSettings). Every field is checked before the
// turn starts: an override grove cannot honour is the client's
// error, never a turn that runs under looser settings than it asked for.
func turnOverrides(p protocol.AppTurnStartParams) (*protocol.TurnOverrides, *protocol.RPCError) {
	o := &protocol.TurnOverrides{}
	set := false
	if p.Cwd != nil && *p.Cwd != "" {
		o.Cwd, set = *p.Cwd, true
	}
	if present(p.ApprovalPolicy) {
		pol, rerr := approvalOverride(p.ApprovalPolicy)
		if rerr != nil {
			return nil, rerr
		}
		o.ApprovalPolicy, set = pol, true
	}
	if present(p.SandboxPolicy) {
		sb, rerr := sandboxOverride(p.SandboxPolicy)
		if rerr != nil {
			return nil, rerr
		}
		o.Sandbox, set = sb, true
	}
	if p.Model != nil && strings.TrimSpace(*p.Model) != "" {
		o.Model, set = strings.TrimSpace(*p.Model), true
	}
	if p.Effort != nil && *p.Effort != "" {
		o.ReasoningEffort, set = *p.Effort, true
	}
	if p.Summary != nil && *p.Summary != "" {
		o.ReasoningSummary, set = *p.Summary, true
	}
	if present(p.OutputSchema) {
		o.OutputSchema, set = p.OutputSchema, true
	}
	if !set {
		return nil, nil
	}
	// The values are the session core's to judge, as for every front end.
	if err := app.CheckTurnSettings(o); err != nil {
		return nil, rpcError(protocol.RPCInvalidParams, "invalid params: %v", err)
	}
	return o, nil
}

func present(raw json.RawMessage) bool {
	return len(raw) > 0 && !bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}

// approvalOverride reads Codex's AskForApproval: one of the policy names.
// The granular object form is refused by name (grove has no per-category
// policy; guessing one could ask less than the client meant).
func approvalOverride(raw json.RawMessage) (protocol.ApprovalPolicy, *protocol.RPCError) {
	var name string
	if err := json.Unmarshal(raw, &name); err != nil {
		return "", rpcError(protocol.RPCInvalidParams, "invalid params: approvalPolicy: grove supports untrusted, on-request, on-failure and never, not %s", raw)
	}
	p := protocol.ApprovalPolicy(name)
	if !p.Valid() {
		return "", rpcError(protocol.RPCInvalidParams, "invalid params: approvalPolicy: unknown policy %q (untrusted, on-request, on-failure, never)", name)
	}
	return p, nil
}

// sandboxOverride reads Codex's SandboxPolicy object.
func sandboxOverride(raw json.RawMessage) (*protocol.SandboxPolicy, *protocol.RPCError) {
	var sp struct {
		Type                string          `json:"type"`
		WritableRoots       []string        `json:"writableRoots"`
		NetworkAccess       json.RawMessage `json:"networkAccess"`
		ExcludeTmpdirEnvVar bool            `json:"excludeTmpdirEnvVar"`
		ExcludeSlashTmp     bool            `json:"excludeSlashTmp"`
	}
	if err := json.Unmarshal(raw, &sp); err != nil {
		return nil, rpcError(protocol.RPCInvalidParams, "invalid params: sandboxPolicy: %v", err)
	}
	network := false
	if present(sp.NetworkAccess) {
		// workspaceWrite has a bool; readOnly/externalSandbox an enum.
		var b bool
		var s string
		switch {
		case json.Unmarshal(sp.NetworkAccess, &b) == nil:
			network = b
		case json.Unmarshal(sp.NetworkAccess, &s) == nil:
			network = s == "enabled"
		}
	}
	switch sp.Type {
	case "readOnly":
		return &protocol.SandboxPolicy{Mode: protocol.SandboxReadOnly}, nil
	case "workspaceWrite":
		for _, r := range sp.WritableRoots {
			if !filepath.IsAbs(r) {
				return nil, rpcError(protocol.RPCInvalidParams, "invalid params: sandboxPolicy.writableRoots: %q is not an absolute path", r)
			}
		}
		return &protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite, WritableRoots: sp.WritableRoots, NetworkAccess: network,
			ExcludeTmpdirEnvVar: sp.ExcludeTmpdirEnvVar, ExcludeSlashTmp: sp.ExcludeSlashTmp}, nil
	case "dangerFullAccess":
		return &protocol.SandboxPolicy{Mode: protocol.SandboxDangerFullAccess}, nil
	case "externalSandbox":
		return nil, rpcError(protocol.RPCInvalidParams, "invalid params: sandboxPolicy: externalSandbox is not supported: grove runs commands in its own sandbox (readOnly, workspaceWrite, dangerFullAccess)")
	}
	return nil, rpcError(protocol.RPCInvalidParams, "invalid params: sandboxPolicy.type: unknown type %q (readOnly, workspaceWrite, dangerFullAccess)", sp.Type)
}
