package acp

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/grovecli/grove/core/app"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

// Session modes are grove's approval policies: ACP's session/set_mode
// switches between them for the whole session (its sub-agents included).
var sessionModes = []sdk.SessionMode{
	{Id: sdk.SessionModeId(protocol.ApprovalUntrusted), Name: "Ask for untrusted", Description: sdk.Ptr("Ask before anything that is not known to be safe")},
	{Id: sdk.SessionModeId(protocol.ApprovalOnRequest), Name: "Ask on request", Description: sdk.Ptr("Work in the sandbox; ask to leave it")},
	{Id: sdk.SessionModeId(protocol.ApprovalOnFailure), Name: "Ask on failure", Description: sdk.Ptr("Run in the sandbox; ask to retry outside it when a command fails")},
	{Id: sdk.SessionModeId(protocol.ApprovalNever), Name: "Never ask", Description: sdk.Ptr("Never ask; what the sandbox refuses fails")},
}

// modeState is the modes with the engine's current policy.
func (s *session) modeState() *sdk.SessionModeState {
	return &sdk.SessionModeState{AvailableModes: sessionModes, CurrentModeId: sdk.SessionModeId(s.eng.ApprovalPolicy())}
}

// modelState is the models a client may pick (Options.ListModels, the
// configured model first) with the root's current one.
func (s *session) modelState(ctx context.Context) *sdk.SessionModelState {
	cur := ""
	if ti, ok := s.eng.Info(s.root); ok {
		cur = ti.Model
	}
	ids := []string{cur}
	if s.a.opts.ListModels != nil {
		ids = append(ids, s.a.opts.ListModels(ctx)...)
	}
	st := &sdk.SessionModelState{CurrentModelId: sdk.ModelId(cur), AvailableModels: []sdk.ModelInfo{}}
	seen := map[string]bool{}
	for _, id := range ids {
		if id != "" && !seen[id] {
			seen[id] = true
			st.AvailableModels = append(st.AvailableModels, sdk.ModelInfo{ModelId: sdk.ModelId(id), Name: id})
		}
	}
	return st
}

func (a *agent) SetSessionMode(_ context.Context, p sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	s, err := a.session(p.SessionId)
	if err != nil {
		return sdk.SetSessionModeResponse{}, err
	}
	if p.ModeId == "" {
		return sdk.SetSessionModeResponse{}, sdk.NewInvalidParams(map[string]any{"modeId": "required"})
	}
	if err := s.configure(protocol.TurnOverrides{ApprovalPolicy: protocol.ApprovalPolicy(p.ModeId)}); err != nil {
		return sdk.SetSessionModeResponse{}, settingsError("modeId", "session/set_mode", err)
	}
	s.update(sdk.SessionUpdate{CurrentModeUpdate: &sdk.SessionCurrentModeUpdate{CurrentModeId: p.ModeId, SessionUpdate: "current_mode_update"}})
	return sdk.SetSessionModeResponse{}, nil
}

// UnstableSetSessionModel sets the model of the session's next turns.
func (a *agent) UnstableSetSessionModel(_ context.Context, p sdk.UnstableSetSessionModelRequest) (sdk.UnstableSetSessionModelResponse, error) {
	s, err := a.session(p.SessionId)
	if err != nil {
		return sdk.UnstableSetSessionModelResponse{}, err
	}
	model := strings.TrimSpace(string(p.ModelId))
	if model == "" {
		return sdk.UnstableSetSessionModelResponse{}, sdk.NewInvalidParams(map[string]any{"modelId": "required"})
	}
	if err := s.configure(protocol.TurnOverrides{Model: model}); err != nil {
		return sdk.UnstableSetSessionModelResponse{}, settingsError("modelId", "session/set_model", err)
	}
	return sdk.UnstableSetSessionModelResponse{}, nil
}

// configure changes the session's settings through the session core,
// which judges them as it judges every front end's; a value it refuses is
// the client's error (invalidSetting).
func (s *session) configure(o protocol.TurnOverrides) error {
	if err := app.CheckSettingsChange(o); err != nil {
		return invalidSetting{err}
	}
	return s.core.Configure(s.root, o)
}

// invalidSetting is a setting the session core refused.
type invalidSetting struct{ error }

// settingsError answers a refused setting as invalid params on the
// request's field, in the core's words; anything else as the method's
// failure.
func settingsError(field, method string, err error) error {
	var bad invalidSetting
	if errors.As(err, &bad) {
		return sdk.NewInvalidParams(map[string]any{field: bad.Error()})
	}
	return fmt.Errorf("%s: %w", method, err)
}

// listPage is how many index entries one session/list page reads.
const listPage = 50

// ListSessions lists stored root sessions, newest first, from the session
// index every front end shares; cwd filters by working directory. The
// cursor is the index position this agent returned.
func (a *agent) ListSessions(_ context.Context, p sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	if a.opts.Home == "" {
		return sdk.ListSessionsResponse{}, sdk.NewInternalError(map[string]any{"error": "session/list: no session store configured"})
	}
	offset := 0
	if p.Cursor != nil && *p.Cursor != "" {
		n, err := strconv.Atoi(*p.Cursor)
		if err != nil || n < 0 {
			return sdk.ListSessionsResponse{}, sdk.NewInvalidParams(map[string]any{"cursor": fmt.Sprintf("%q is not a cursor this agent returned", *p.Cursor)})
		}
		offset = n
	}
	if p.Cwd != nil && *p.Cwd != "" {
		if err := checkCwd(*p.Cwd); err != nil {
			return sdk.ListSessionsResponse{}, err
		}
	}
	entries, more, err := rollout.ListSessions(a.opts.Home, offset, listPage)
	if err != nil {
		return sdk.ListSessionsResponse{}, fmt.Errorf("session/list: %w", err)
	}
	resp := sdk.ListSessionsResponse{Sessions: []sdk.SessionInfo{}}
	for _, e := range entries {
		if p.Cwd != nil && *p.Cwd != "" && e.Cwd != *p.Cwd {
			continue
		}
		resp.Sessions = append(resp.Sessions, sessionInfo(e))
	}
	if more {
		next := strconv.Itoa(offset + len(entries))
		resp.NextCursor = &next
	}
	return resp, nil
}

// sessionInfo describes an index entry: its name, else its note, else its
// first prompt is the title.
func sessionInfo(e rollout.IndexEntry) sdk.SessionInfo {
	info := sdk.SessionInfo{SessionId: sdk.SessionId(e.ID), Cwd: e.Cwd}
	for _, t := range []string{e.ThreadName, e.Note, e.FirstPrompt} {
		if t = strings.TrimSpace(t); t != "" {
			info.Title = sdk.Ptr(clip(t, 120))
			break
		}
	}
	if !e.UpdatedAt.IsZero() {
		info.UpdatedAt = sdk.Ptr(e.UpdatedAt.UTC().Format(time.RFC3339))
	}
	return info
}
