package hooks

import (
	"context"
	"encoding/json"
	"fmt"
)

// has reports whether any active hook listens to ev (so an event nobody
// listens to costs no JSON encoding).
func (r *Runner) has(ev Event) bool {
	if r == nil {
		return false
	}
	for _, h := range r.hooks {
		if h.Event == ev {
			return true
		}
	}
	return false
}

// fire encodes fields as the hooks' stdin, runs the matching hooks and
// combines what they said.
func (r *Runner) fire(ctx context.Context, ev Event, c Context, inputs []string, fields map[string]any) Outcome {
	stdin, err := json.Marshal(fields)
	if err != nil {
		return Outcome{Notes: []string{fmt.Sprintf("%s hooks: encode input: %v", ev, err)}}
	}
	return combine(ev, r.run(ctx, ev, inputs, stdin, c.Cwd))
}

// PreToolUse runs before a tool call; Block means the call must not run
// and BlockedOutput is what the model reads instead.
func (r *Runner) PreToolUse(ctx context.Context, c Context, t Tool) Outcome {
	if !r.has(PreToolUse) {
		return Outcome{}
	}
	f := c.fields(PreToolUse)
	f["tool_name"], f["tool_input"], f["tool_use_id"] = t.Name, t.Input, t.UseID
	return r.fire(ctx, PreToolUse, c, t.matchInputs(), f)
}

// BlockedOutput is Codex's wording of a blocked call's output.
func BlockedOutput(t Tool, reason string) string {
	if in, ok := t.Input.(map[string]any); ok && (t.Name == "Bash" || t.Name == "apply_patch") {
		if cmd, ok := in["command"].(string); ok {
			return fmt.Sprintf("Command blocked by PreToolUse hook: %s. Command: %s", reason, cmd)
		}
	}
	return fmt.Sprintf("Tool call blocked by PreToolUse hook: %s. Tool: %s", reason, t.Name)
}

// PostToolUse runs once after a tool call with its result.
func (r *Runner) PostToolUse(ctx context.Context, c Context, t Tool, response any) Outcome {
	if !r.has(PostToolUse) {
		return Outcome{}
	}
	f := c.fields(PostToolUse)
	f["tool_name"], f["tool_input"], f["tool_use_id"], f["tool_response"] = t.Name, t.Input, t.UseID, response
	return r.fire(ctx, PostToolUse, c, t.matchInputs(), f)
}

// PermissionRequest runs when a call needs the user's approval; an
// "allow" or "deny" Decision answers it without asking.
func (r *Runner) PermissionRequest(ctx context.Context, c Context, t Tool) Outcome {
	if !r.has(PermissionRequest) {
		return Outcome{}
	}
	f := c.fields(PermissionRequest)
	f["tool_name"], f["tool_input"] = t.Name, t.Input
	return r.fire(ctx, PermissionRequest, c, t.matchInputs(), f)
}

// UserPromptSubmit runs when input starts a turn; Block keeps the prompt
// from the model.
func (r *Runner) UserPromptSubmit(ctx context.Context, c Context, prompt string) Outcome {
	if !r.has(UserPromptSubmit) {
		return Outcome{}
	}
	f := c.fields(UserPromptSubmit)
	f["prompt"] = prompt
	return r.fire(ctx, UserPromptSubmit, c, nil, f)
}

// Stop runs when a turn is about to end; Block continues the turn with
// Reason as the next input. active is true when this turn already
// continued because of a Stop hook (hooks use it to avoid looping).
func (r *Runner) Stop(ctx context.Context, c Context, lastMessage string, active bool) Outcome {
	if !r.has(Stop) {
		return Outcome{}
	}
	f := c.fields(Stop)
	f["stop_hook_active"] = active
	f["last_assistant_message"] = nullable(lastMessage)
	return r.fire(ctx, Stop, c, nil, f)
}

// SessionStart runs when a thread starts (source "startup") or is
// resumed ("resume"); Contexts go to the model.
func (r *Runner) SessionStart(ctx context.Context, c Context, source string) Outcome {
	if !r.has(SessionStart) {
		return Outcome{}
	}
	c.TurnID = ""
	f := c.fields(SessionStart)
	f["source"] = source
	return r.fire(ctx, SessionStart, c, []string{source}, f)
}

// SubagentStart runs in the parent (c) when a child starts.
func (r *Runner) SubagentStart(ctx context.Context, c Context, s Subagent) Outcome {
	if !r.has(SubagentStart) {
		return Outcome{}
	}
	c.AgentID, c.AgentType = s.ID, s.Type
	return r.fire(ctx, SubagentStart, c, []string{s.Type}, c.fields(SubagentStart))
}

// SubagentStop runs in the parent (c) when a child reaches a final
// status. agent_status is grove's addition to Codex's fields.
func (r *Runner) SubagentStop(ctx context.Context, c Context, s Subagent, active bool) Outcome {
	if !r.has(SubagentStop) {
		return Outcome{}
	}
	c.AgentID, c.AgentType = s.ID, s.Type
	f := c.fields(SubagentStop)
	f["agent_transcript_path"] = nullable(s.TranscriptPath)
	f["last_assistant_message"] = nullable(s.LastMessage)
	f["stop_hook_active"] = active
	f["agent_status"] = s.Status
	return r.fire(ctx, SubagentStop, c, []string{s.Type}, f)
}

// PreCompact runs before a thread's history is compacted; trigger is
// "manual" or "auto".
func (r *Runner) PreCompact(ctx context.Context, c Context, trigger string) Outcome {
	return r.compact(ctx, PreCompact, c, trigger)
}

// PostCompact runs after a thread's history was compacted.
func (r *Runner) PostCompact(ctx context.Context, c Context, trigger string) Outcome {
	return r.compact(ctx, PostCompact, c, trigger)
}

func (r *Runner) compact(ctx context.Context, ev Event, c Context, trigger string) Outcome {
	if !r.has(ev) {
		return Outcome{}
	}
	f := c.fields(ev)
	delete(f, "permission_mode") // not a field of the compact events
	delete(f, "agent_id")
	delete(f, "agent_type")
	f["trigger"] = trigger
	return r.fire(ctx, ev, c, nil, f)
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}
