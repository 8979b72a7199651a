package mcp

//lint:file-ignore SA1019 MCP roots and sampling are deprecated (SEP-2577) but servers still use them during the deprecation window; grove keeps offering them

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/tools"
	"github.com/grovecli/grove/protocol"
)

// What grove offers servers that ask (the client side of MCP): roots, the
// session's workspace directories; and sampling, a model call through the
// session's model that the user approves first.

// Sampler answers sampling/createMessage with the session's model.
type Sampler struct {
	Client model.Client
	Model  string
}

// roots are the workspace roots as MCP roots (file:// URIs).
func fileRoots(dirs []string) []*sdk.Root {
	var out []*sdk.Root
	seen := map[string]bool{}
	for _, d := range dirs {
		if d == "" || !filepath.IsAbs(d) || seen[d] {
			continue
		}
		seen[d] = true
		out = append(out, &sdk.Root{URI: (&url.URL{Scheme: "file", Path: filepath.ToSlash(d)}).String(), Name: filepath.Base(d)})
	}
	return out
}

// activeCalls are the tool calls running on one server: a sampling request
// arrives while one runs (the server asks during its tool), and its
// thread is the one whose user approves.
type activeCalls struct {
	mu   sync.Mutex
	envs []*tools.Env
}

func (a *activeCalls) push(env *tools.Env) (pop func()) {
	a.mu.Lock()
	a.envs = append(a.envs, env)
	a.mu.Unlock()
	return func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		for i, e := range a.envs {
			if e == env {
				a.envs = append(a.envs[:i], a.envs[i+1:]...)
				return
			}
		}
	}
}

// latest is the most recent running call's env (nil when none runs).
func (a *activeCalls) latest() *tools.Env {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.envs) == 0 {
		return nil
	}
	return a.envs[len(a.envs)-1]
}

// createMessage answers a server's sampling request: the user of the
// calling thread approves (the server's messages are shown), then the
// session's model answers with text.
func (s *server) createMessage(ctx context.Context, req *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
	sm := s.m.sampler
	if sm == nil || sm.Client == nil {
		return nil, errors.New("grove: sampling is not available in this session (no model)")
	}
	env := s.active.latest()
	if env == nil || env.Approve == nil {
		return nil, fmt.Errorf("grove: sampling is answered only while one of %s's tool calls runs in a session where someone can approve it", s.name)
	}
	p := req.Params
	items, preview, err := sampleItems(p.Messages)
	if err != nil {
		return nil, err
	}
	reason := fmt.Sprintf("MCP server %s asks the model (%s, up to %d tokens): %s", s.name, sm.Model, p.MaxTokens, clip(preview, 400))
	d, err := env.Approve(ctx, protocol.ApprovalRequest{Kind: protocol.ApprovalExec, Command: "mcp sampling: " + s.name, Cwd: env.Cwd, Reason: reason})
	if err != nil {
		return nil, fmt.Errorf("grove: sampling request not approved: %w", err)
	}
	if d != protocol.DecisionApproved && d != protocol.DecisionApprovedForSession {
		return nil, errors.New("grove: the user declined the sampling request")
	}
	resp, err := sm.Client.Stream(ctx, model.Request{Model: sm.Model, Instructions: p.SystemPrompt, Items: items}, nil)
	if err != nil {
		return nil, fmt.Errorf("grove: sampling model call: %w", err)
	}
	return &sdk.CreateMessageResult{Content: &sdk.TextContent{Text: resp.Text}, Model: sm.Model, Role: "assistant", StopReason: "endTurn"}, nil
}

// sampleItems converts sampling messages (text only: grove sends the model
// text here) to a conversation, and a preview for the approval.
func sampleItems(msgs []*sdk.SamplingMessage) ([]protocol.Item, string, error) {
	var items []protocol.Item
	var preview []string
	for i, m := range msgs {
		t, ok := m.Content.(*sdk.TextContent)
		if !ok {
			return nil, "", fmt.Errorf("grove: sampling message %d: only text content is supported, got %T", i, m.Content)
		}
		role := protocol.RoleUser
		if m.Role == "assistant" {
			role = protocol.RoleAssistant
		}
		items = append(items, protocol.Item{Type: protocol.ItemMessage, Role: role, Content: t.Text})
		preview = append(preview, string(m.Role)+": "+t.Text)
	}
	if len(items) == 0 {
		return nil, "", errors.New("grove: sampling request has no messages")
	}
	return items, strings.Join(preview, " | "), nil
}
