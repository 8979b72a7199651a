package protocol

import "encoding/json"

// TurnOverrides change a thread's settings from the turn they arrive with
// (Codex's turn/start overrides: cwd, approval policy, sandbox, model,
// effort and summary hold for the turns that follow; the output schema is
// this turn's only). Zero fields leave the setting as it is.
type TurnOverrides struct {
	Cwd              string         `json:"cwd,omitempty"`
	ApprovalPolicy   ApprovalPolicy `json:"approval_policy,omitempty"`
	Sandbox          *SandboxPolicy `json:"sandbox,omitempty"`
	Model            string         `json:"model,omitempty"`
	ReasoningEffort  string         `json:"reasoning_effort,omitempty"`
	ReasoningSummary string         `json:"reasoning_summary,omitempty"`
	// OutputSchema constrains this turn's final message (a JSON Schema
	// object).
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
}

// ReasoningSummaries are the values of Codex's ReasoningSummary.
var ReasoningSummaries = map[string]bool{"auto": true, "concise": true, "detailed": true, "none": true}

// ReasoningEfforts are the values Codex's ReasoningEffort accepts (a
// turn's effort, a model's supported efforts).
var ReasoningEfforts = map[string]bool{"none": true, "minimal": true, "low": true, "medium": true, "high": true, "xhigh": true}
