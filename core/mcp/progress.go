package mcp

import (
	"context"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// progressRouter sends notifications/progress to the call that asked for
// them (by progress token); a token no call waits for is dropped.
type progressRouter struct {
	mu    sync.Mutex
	byTok map[string]func(*sdk.ProgressNotificationParams)
}

func (r *progressRouter) watch(token string, fn func(*sdk.ProgressNotificationParams)) (stop func()) {
	r.mu.Lock()
	if r.byTok == nil {
		r.byTok = map[string]func(*sdk.ProgressNotificationParams){}
	}
	r.byTok[token] = fn
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		delete(r.byTok, token)
		r.mu.Unlock()
	}
}

func (r *progressRouter) handle(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
	if req == nil || req.Params == nil {
		return
	}
	tok, ok := req.Params.ProgressToken.(string)
	if !ok {
		return
	}
	r.mu.Lock()
	fn := r.byTok[tok]
	r.mu.Unlock()
	if fn != nil {
		fn(req.Params)
	}
}
