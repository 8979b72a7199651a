package config

import (
	"fmt"

	"github.com/grovecli/grove/protocol"
)

// ApprovalSetting is `approval_policy` as Codex writes it: a policy name
// or `{ granular = { ... } }`.
type ApprovalSetting struct {
	Name     protocol.ApprovalPolicy
	Granular *GranularApproval
}

// GranularApproval is Codex's granular approval table: true lets a
// category of request reach the user, false rejects it without asking.
type GranularApproval struct {
	SandboxApproval    bool
	Rules              bool
	MCPElicitations    bool
	RequestPermissions bool
	SkillApproval      bool
}

// UnmarshalTOML reads a name or the granular table.
func (a *ApprovalSetting) UnmarshalTOML(v any) error {
	switch v := v.(type) {
	case string:
		a.Name = protocol.ApprovalPolicy(v)
		return nil
	case map[string]any:
		g, ok := v["granular"].(map[string]any)
		if !ok || len(v) != 1 {
			return fmt.Errorf("approval_policy: a table must be { granular = { ... } }")
		}
		var out GranularApproval
		fields := map[string]*bool{
			"sandbox_approval": &out.SandboxApproval, "rules": &out.Rules, "mcp_elicitations": &out.MCPElicitations,
			"request_permissions": &out.RequestPermissions, "skill_approval": &out.SkillApproval,
		}
		for k, raw := range g {
			dst, known := fields[k]
			if !known {
				return fmt.Errorf("approval_policy.granular.%s: unknown category (expected sandbox_approval, rules, mcp_elicitations, request_permissions or skill_approval)", k)
			}
			b, ok := raw.(bool)
			if !ok {
				return fmt.Errorf("approval_policy.granular.%s: expected true or false", k)
			}
			*dst = b
		}
		for _, req := range []string{"sandbox_approval", "rules", "mcp_elicitations"} {
			if _, ok := g[req]; !ok {
				return fmt.Errorf("approval_policy.granular.%s is required (as in Codex)", req)
			}
		}
		a.Granular = &out
		return nil
	}
	return fmt.Errorf("approval_policy: expected a policy name or { granular = { ... } }")
}

// Policy is the grove policy the setting means. The granular table's
// command category decides: requests grove can show are command approvals,
// so sandbox_approval = true asks (on-request) and false rejects them
// without asking (never). Grove has no execpolicy rules, skills or MCP
// elicitations for the other categories to gate.
func (a ApprovalSetting) Policy() (protocol.ApprovalPolicy, error) {
	if a.Granular != nil {
		if a.Granular.SandboxApproval {
			return protocol.ApprovalOnRequest, nil
		}
		return protocol.ApprovalNever, nil
	}
	if a.Name == "" {
		return protocol.ApprovalOnRequest, nil
	}
	if !a.Name.Valid() {
		return "", fmt.Errorf("approval_policy %q: expected untrusted, on-request, on-failure, never or { granular = { ... } }", a.Name)
	}
	return a.Name, nil
}
