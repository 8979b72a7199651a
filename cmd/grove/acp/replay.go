package acp

import (
	"context"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/grovecli/grove/core/logging"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

// replay sends a loaded session's conversation as session/update, each
// tool call with the outcome it had: the tool_call_end the rollout recorded
// (error, exit code, output) and, for a sub-agent, the final status of the
// agent it spawned.
func (s *session) replay(ctx context.Context) error {
	hist := s.eng.History(s.root)
	outputs := map[string]string{}
	for _, it := range hist {
		if it.Type == protocol.ItemFunctionCallOutput {
			outputs[it.CallID] = it.Output
		}
	}
	ends := s.recordedEnds()
	cwd := s.cwd()
	for _, it := range hist {
		if err := ctx.Err(); err != nil {
			return err
		}
		switch {
		case it.IsTurnAbortedNotice():
			// Left for the model after an interrupt; the client saw the stop.
		case it.Type == protocol.ItemMessage && it.IsGroveNotice():
			// grove's notice to the model is not the user's words.
			s.update(sdk.UpdateAgentThoughtText(it.Content))
		case it.Type == protocol.ItemMessage && it.Role == protocol.RoleUser:
			s.update(sdk.UpdateUserMessageText(it.Content))
		case it.Type == protocol.ItemMessage && it.Role == protocol.RoleAssistant:
			s.update(sdk.UpdateAgentMessageText(it.Content))
		case it.Type == protocol.ItemFunctionCall:
			s.replayCall(it, outputs, ends, cwd)
		}
	}
	return nil
}

// replayCall sends one stored tool call.
func (s *session) replayCall(it protocol.Item, outputs map[string]string, ends map[string]protocol.ToolCall, cwd string) {
	tc := protocol.ToolCall{CallID: it.CallID, Name: it.Name, Arguments: it.Arguments}
	end, ended := ends[it.CallID]
	out, answered := outputs[it.CallID]
	switch {
	case ended:
		tc.Output, tc.IsError, tc.ExitCode, tc.AgentIDs, tc.DurationMS = end.Output, end.IsError, end.ExitCode, end.AgentIDs, end.DurationMS
	case answered:
		tc.Output = out
	}
	status := sdk.ToolCallStatusCompleted
	switch {
	case !ended && !answered:
		status = sdk.ToolCallStatusFailed // it never finished (a crash or a kill)
	case tc.IsError || (tc.ExitCode != nil && *tc.ExitCode != 0):
		status = sdk.ToolCallStatusFailed
	case tc.Name == "spawn_agent":
		status = s.childOutcome(tc.AgentIDs)
	}
	opts := []sdk.ToolCallStartOpt{sdk.WithStartKind(toolKind(tc)), sdk.WithStartStatus(status), sdk.WithStartRawInput(rawArgs(tc.Arguments))}
	if ended || answered {
		opts = append(opts, sdk.WithStartContent(toolContent(tc, cwd)), sdk.WithStartRawOutput(rawOutput(tc)))
	}
	if locs := toolLocations(tc, cwd); len(locs) > 0 {
		opts = append(opts, sdk.WithStartLocations(locs))
	}
	s.update(sdk.StartToolCall(sdk.ToolCallId(tc.CallID), toolTitle(tc), opts...))
}

// rawOutput is a finished call's outcome for the client (the live
// tool_call update's rawOutput, plus the error and exit code).
func rawOutput(tc protocol.ToolCall) map[string]any {
	out := map[string]any{"output": tc.Output}
	if tc.IsError {
		out["is_error"] = true
	}
	if tc.ExitCode != nil {
		out["exit_code"] = *tc.ExitCode
	}
	return out
}

// childOutcome is a spawn_agent call's status from the agents it spawned:
// failed if one errored, in progress while one runs, completed once all
// reached a final status.
func (s *session) childOutcome(ids []protocol.ThreadID) sdk.ToolCallStatus {
	status := sdk.ToolCallStatusCompleted
	for _, id := range ids {
		ti, ok := s.eng.Info(id)
		if !ok {
			continue // not resumed with the session: nothing says it still runs
		}
		switch {
		case ti.Status.Kind == protocol.StatusErrored:
			return sdk.ToolCallStatusFailed
		case !ti.Status.IsFinal():
			status = sdk.ToolCallStatusInProgress
		}
	}
	return status
}

// recordedEnds reads the root's rollout for the tool_call_end of each
// call (the conversation keeps only the output the model saw).
func (s *session) recordedEnds() map[string]protocol.ToolCall {
	ends := map[string]protocol.ToolCall{}
	ti, ok := s.eng.Info(s.root)
	if !ok || ti.RolloutPath == "" {
		return ends
	}
	stored, err := rollout.Read(ti.RolloutPath)
	if err != nil {
		logging.L().Warn("acp: session/load: outcomes of tool calls not read", "session", string(s.id), "err", err)
		return ends
	}
	for _, ev := range stored.Events {
		if ev.ThreadID != "" && ev.ThreadID != s.root {
			continue
		}
		if m, err := ev.Msg(); err == nil {
			if end, ok := m.(protocol.ToolCallEndMsg); ok {
				ends[end.Call.CallID] = end.Call
			}
		}
	}
	return ends
}
