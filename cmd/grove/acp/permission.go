package acp

import (
	"context"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/grovecli/grove/core/logging"
	"github.com/grovecli/grove/protocol"
)

// askPermission asks the client on a goroutine of its own (the pump must
// not block) and hands the answer to the engine.
func (s *session) askPermission(ap protocol.ApprovalRequest) {
	s.mu.Lock()
	callID := ap.CallID
	if anchor, ok := s.anchors[ap.ThreadID]; ok {
		callID = anchor // the client knows sub-agents by their spawn call
	}
	s.mu.Unlock()
	if callID == "" {
		callID = ap.ID
	}
	title := approvalTitle(ap)
	kind := sdk.ToolKindExecute
	if ap.Kind == protocol.ApprovalPatch {
		kind = sdk.ToolKindEdit
	}
	req := sdk.RequestPermissionRequest{
		SessionId: s.id,
		ToolCall: sdk.ToolCallUpdate{
			ToolCallId: sdk.ToolCallId(callID), Title: sdk.Ptr(title), Kind: sdk.Ptr(kind),
			Status:   sdk.Ptr(sdk.ToolCallStatusPending),
			RawInput: map[string]any{"kind": string(ap.Kind), "command": ap.Command, "cwd": ap.Cwd, "files": ap.Files, "dir": ap.Dir, "chain": ap.Chain, "reason": ap.Reason},
		},
		Options: permissionOptions(&ap),
	}
	ctx, cancel := context.WithCancel(s.a.ctx)
	s.mu.Lock()
	s.asking[ap.ID] = cancel
	s.mu.Unlock()
	s.a.wg.Add(1)
	go func() {
		defer s.a.wg.Done()
		defer s.withdrawPermission(ap.ID)
		d := protocol.DecisionAbort
		resp, err := s.a.connection().RequestPermission(ctx, req)
		switch {
		case err != nil && ctx.Err() != nil && s.a.ctx.Err() == nil:
			// Withdrawn: the engine resolved the request first (its turn
			// was interrupted or ended, or someone else answered).
			return
		case err != nil:
			logging.L().Warn("acp: permission request failed; aborting", "session", string(s.id), "err", err)
		case resp.Outcome.Selected != nil:
			switch protocol.ReviewDecision(resp.Outcome.Selected.OptionId) {
			case protocol.DecisionApproved:
				d = protocol.DecisionApproved
			case protocol.DecisionApprovedForSession:
				d = protocol.DecisionApprovedForSession
			default:
				d = protocol.DecisionDenied
			}
		}
		if err := s.eng.Submit(protocol.Op{Type: protocol.OpApproval, ApprovalID: ap.ID, Decision: d}); err != nil {
			logging.L().Debug("acp: approval answer not applied", "err", err)
		}
	}()
}

// withdrawPermission ends the client's permission request for approval
// id if it is still out: the engine resolved it without this client (a
// cancelled turn, an answer from elsewhere), so the SDK sends
// $/cancel_request and the client closes its dialog instead of asking a
// question nobody will read.
func (s *session) withdrawPermission(id string) {
	s.mu.Lock()
	cancel := s.asking[id]
	delete(s.asking, id)
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// permissionOptions are the answers offered for ap: "Allow for this
// session" only when the engine will remember it (not for an MCP tool
// whose approval_mode asks before every call, as in Codex).
func permissionOptions(ap *protocol.ApprovalRequest) []sdk.PermissionOption {
	opts := []sdk.PermissionOption{{Kind: sdk.PermissionOptionKindAllowOnce, Name: "Allow", OptionId: sdk.PermissionOptionId(protocol.DecisionApproved)}}
	if ap.OffersSession() {
		opts = append(opts, sdk.PermissionOption{Kind: sdk.PermissionOptionKindAllowAlways, Name: "Allow for this session", OptionId: sdk.PermissionOptionId(protocol.DecisionApprovedForSession)})
	}
	return append(opts, sdk.PermissionOption{Kind: sdk.PermissionOptionKindRejectOnce, Name: "Reject", OptionId: sdk.PermissionOptionId(protocol.DecisionDenied)})
}
