package hooks

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Outcome is what an event's hooks decided, together.
type Outcome struct {
	// Block: a hook blocked (exit 2 with a reason on stderr, or a JSON
	// deny/block decision). Reason is the first blocking hook's reason.
	Block  bool
	Reason string
	// Contexts are additionalContext strings for the model, in order.
	Contexts []string
	// UpdatedInput is a PreToolUse allow's rewritten tool_input (the hook
	// that finished last wins, as in Codex).
	UpdatedInput json.RawMessage
	// Decision is a PermissionRequest answer: "allow", "deny" or "".
	Decision string
	// Notes are what the user should see: failed or timed-out hooks,
	// invalid output, systemMessage. Each names its hook.
	Notes []string
	// Ran counts the hooks that ran synchronously.
	Ran int
}

// wireOutput is a hook's JSON stdout (Codex's and Claude Code's fields).
// Unknown fields are ignored: Claude Code files print more than Codex reads.
type wireOutput struct {
	Continue           *bool   `json:"continue"`
	StopReason         *string `json:"stopReason"`
	SuppressOutput     bool    `json:"suppressOutput"`
	SystemMessage      *string `json:"systemMessage"`
	Decision           *string `json:"decision"`
	Reason             *string `json:"reason"`
	HookSpecificOutput *struct {
		PermissionDecision       *string         `json:"permissionDecision"`
		PermissionDecisionReason *string         `json:"permissionDecisionReason"`
		UpdatedInput             json.RawMessage `json:"updatedInput"`
		AdditionalContext        *string         `json:"additionalContext"`
		Decision                 *struct {
			Behavior string  `json:"behavior"`
			Message  *string `json:"message"`
		} `json:"decision"`
	} `json:"hookSpecificOutput"`
}

// blocking events are those whose exit code 2 blocks something.
func (e Event) blocking() bool {
	switch e {
	case PreToolUse, PermissionRequest, PostToolUse, UserPromptSubmit, Stop, SubagentStop:
		return true
	}
	return false
}

// name is how a note names a hook: its event, command and file.
func (h Hook) name() string {
	cmd := h.Command
	if len(cmd) > 60 {
		cmd = cmd[:57] + "..."
	}
	return fmt.Sprintf("%s hook %q (%s)", h.Event, cmd, h.File)
}

// combine folds the results of one event's hooks into an Outcome.
func combine(ev Event, results []result) Outcome {
	var o Outcome
	o.Ran = len(results)
	lastUpdate := -1
	for _, r := range results {
		d := decide(ev, r)
		o.Notes = append(o.Notes, d.notes...)
		o.Contexts = append(o.Contexts, d.contexts...)
		if d.block && !o.Block {
			o.Block, o.Reason = true, d.reason
		}
		if d.decision == "deny" || (d.decision == "allow" && o.Decision == "") {
			if o.Decision != "deny" {
				o.Decision = d.decision
				if d.decision == "deny" {
					o.Reason = d.reason
				}
			}
		}
		if d.updatedInput != nil && r.order > lastUpdate {
			o.UpdatedInput, lastUpdate = d.updatedInput, r.order
		}
	}
	if o.Block {
		o.UpdatedInput = nil
	}
	return o
}

type decision struct {
	block        bool
	reason       string
	contexts     []string
	updatedInput json.RawMessage
	decision     string
	notes        []string
}

// decide reads one hook's exit status and output.
func decide(ev Event, r result) decision {
	var d decision
	name := r.hook.name()
	switch {
	case r.err != nil:
		d.notes = append(d.notes, fmt.Sprintf("%s failed: %v", name, r.err))
	case r.exitCode == 2:
		reason := strings.TrimSpace(r.stderr)
		switch {
		case !ev.blocking():
			d.notes = append(d.notes, fmt.Sprintf("%s exited 2: %s", name, orNone(reason)))
		case reason == "":
			d.notes = append(d.notes, fmt.Sprintf("%s exited with code 2 but did not write a blocking reason to stderr", name))
		case ev == PermissionRequest:
			d.decision, d.reason = "deny", reason
		default:
			d.block, d.reason = true, reason
		}
	case r.exitCode != 0:
		d.notes = append(d.notes, fmt.Sprintf("%s exited with code %d: %s", name, r.exitCode, orNone(strings.TrimSpace(r.stderr))))
	default:
		decideStdout(ev, r, name, &d)
	}
	return d
}

func orNone(s string) string {
	if s == "" {
		return "(no output)"
	}
	return s
}

// decideStdout reads exit-0 stdout: a JSON object with decisions, or
// plain text (context for the model on SessionStart and UserPromptSubmit,
// as in Claude Code; ignored elsewhere).
func decideStdout(ev Event, r result, name string, d *decision) {
	out := strings.TrimSpace(r.stdout)
	if out == "" {
		return
	}
	var w wireOutput
	if !strings.HasPrefix(out, "{") {
		if strings.HasPrefix(out, "[") {
			d.notes = append(d.notes, fmt.Sprintf("%s returned invalid JSON output (an array)", name))
		} else if ev == SessionStart || ev == UserPromptSubmit || ev == SubagentStart {
			d.contexts = append(d.contexts, out)
		}
		return
	}
	if err := json.Unmarshal([]byte(out), &w); err != nil {
		d.notes = append(d.notes, fmt.Sprintf("%s returned invalid JSON output: %v", name, err))
		return
	}
	if w.SystemMessage != nil && *w.SystemMessage != "" {
		d.notes = append(d.notes, fmt.Sprintf("%s: %s", name, *w.SystemMessage))
	}
	hso := w.HookSpecificOutput
	if hso != nil && hso.AdditionalContext != nil && *hso.AdditionalContext != "" {
		d.contexts = append(d.contexts, *hso.AdditionalContext)
	}
	switch ev {
	case PreToolUse:
		decidePreToolUse(w, name, d)
	case PermissionRequest:
		if hso != nil && hso.Decision != nil {
			switch hso.Decision.Behavior {
			case "allow":
				d.decision = "allow"
			case "deny":
				d.decision, d.reason = "deny", "PermissionRequest hook denied approval"
				if hso.Decision.Message != nil && strings.TrimSpace(*hso.Decision.Message) != "" {
					d.reason = strings.TrimSpace(*hso.Decision.Message)
				}
			default:
				d.notes = append(d.notes, fmt.Sprintf("%s returned unknown decision.behavior %q", name, hso.Decision.Behavior))
			}
		}
	default:
		decideBlock(ev, w, name, d)
	}
}

// decideBlock reads the {"decision": "block", "reason": ...} form of
// PostToolUse, UserPromptSubmit, Stop and SubagentStop; `continue: false`
// with a stopReason also ends what the event was about.
func decideBlock(ev Event, w wireOutput, name string, d *decision) {
	if w.Decision != nil && *w.Decision == "block" {
		if w.Reason == nil || strings.TrimSpace(*w.Reason) == "" {
			d.notes = append(d.notes, fmt.Sprintf("%s returned decision:block without a non-empty reason", name))
			return
		}
		if ev.blocking() {
			d.block, d.reason = true, strings.TrimSpace(*w.Reason)
		}
		return
	}
	if w.Continue != nil && !*w.Continue && ev != Stop && ev != SubagentStop && ev.blocking() {
		d.block, d.reason = true, "stopped by hook"
		if w.StopReason != nil && strings.TrimSpace(*w.StopReason) != "" {
			d.reason = strings.TrimSpace(*w.StopReason)
		}
	}
}

// decidePreToolUse reads hookSpecificOutput.permissionDecision (deny with
// a reason blocks; allow may carry updatedInput) or the older top-level
// decision:"block".
func decidePreToolUse(w wireOutput, name string, d *decision) {
	hso := w.HookSpecificOutput
	if hso != nil && (hso.PermissionDecision != nil || hso.PermissionDecisionReason != nil || hso.UpdatedInput != nil) {
		pd := ""
		if hso.PermissionDecision != nil {
			pd = *hso.PermissionDecision
		}
		reason := ""
		if hso.PermissionDecisionReason != nil {
			reason = strings.TrimSpace(*hso.PermissionDecisionReason)
		}
		switch pd {
		case "deny":
			if reason == "" {
				d.notes = append(d.notes, fmt.Sprintf("%s returned permissionDecision:deny without a non-empty permissionDecisionReason", name))
				return
			}
			d.block, d.reason = true, reason
		case "allow":
			if len(hso.UpdatedInput) > 0 && string(hso.UpdatedInput) != "null" {
				d.updatedInput = hso.UpdatedInput
			}
		case "ask":
			// grove's own approval flow decides whether to ask.
			d.notes = append(d.notes, fmt.Sprintf("%s returned permissionDecision:ask, which grove leaves to its approval policy", name))
		default:
			d.notes = append(d.notes, fmt.Sprintf("%s returned permissionDecision %q (expected allow or deny)", name, pd))
		}
		return
	}
	if w.Decision != nil && *w.Decision == "block" {
		if w.Reason == nil || strings.TrimSpace(*w.Reason) == "" {
			d.notes = append(d.notes, fmt.Sprintf("%s returned decision:block without a non-empty reason", name))
			return
		}
		d.block, d.reason = true, strings.TrimSpace(*w.Reason)
	}
}
