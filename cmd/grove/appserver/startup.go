package appserver

import (
	"strconv"

	"github.com/grovecli/grove/protocol"
)

// The methods an IDE calls at startup, before any thread: account/read,
// config/read, model/list, mcpServerStatus/list. Their answers come from
// Options.Host.

// pageParams are the cursor/limit of Codex's list methods.
type pageParams struct {
	Cursor *string `json:"cursor"`
	Limit  *int    `json:"limit"`
}

// page cuts one page of n items; the cursor is the offset this server
// returned as nextCursor.
func (p pageParams) page(n int) (from, to int, next *string, rerr *protocol.RPCError) {
	if p.Cursor != nil && *p.Cursor != "" {
		off, err := strconv.Atoi(*p.Cursor)
		if err != nil || off < 0 {
			// Codex's words (model_list.rs list_models_rejects_invalid_cursor).
			return 0, 0, nil, rpcError(protocol.RPCInvalidRequest, "invalid cursor: %s", *p.Cursor)
		}
		from = min(off, n)
	}
	to = n
	if p.Limit != nil {
		if *p.Limit <= 0 {
			return 0, 0, nil, rpcError(protocol.RPCInvalidParams, "invalid params: limit: must be 1 or more")
		}
		to = min(from+*p.Limit, n)
	}
	if to < n {
		c := strconv.Itoa(to)
		next = &c
	}
	return from, to, next, nil
}

func (s *Server) host() (*Host, *protocol.RPCError) {
	if s.opts.Host == nil {
		return nil, rpcError(protocol.RPCInternalError, "app-server: started without its configuration (no Host)")
	}
	return s.opts.Host, nil
}

type accountReadParams struct {
	RefreshToken bool `json:"refreshToken"`
}

func (s *Server) accountRead(p accountReadParams) (any, *protocol.RPCError) {
	h, rerr := s.host()
	if rerr != nil {
		return nil, rerr
	}
	return h.account(), nil
}

type configReadParams struct {
	IncludeLayers bool    `json:"includeLayers"`
	Cwd           *string `json:"cwd"`
}

func (s *Server) configRead(p configReadParams) (any, *protocol.RPCError) {
	h, rerr := s.host()
	if rerr != nil {
		return nil, rerr
	}
	resp, err := h.readConfig(p.IncludeLayers)
	if err != nil {
		return nil, rpcError(protocol.RPCInternalError, "config/read: %v", err)
	}
	return resp, nil
}

type modelListParams struct {
	pageParams
	IncludeHidden *bool `json:"includeHidden"`
}

func (s *Server) modelList(p modelListParams) (any, *protocol.RPCError) {
	h, rerr := s.host()
	if rerr != nil {
		return nil, rerr
	}
	all := h.listModels(s.ctx)
	from, to, next, rerr := p.page(len(all))
	if rerr != nil {
		return nil, rerr
	}
	return map[string]any{"data": all[from:to], "nextCursor": next}, nil
}

func (s *Server) mcpServerStatusList(p pageParams) (any, *protocol.RPCError) {
	h, rerr := s.host()
	if rerr != nil {
		return nil, rerr
	}
	all := h.mcpServers()
	from, to, next, rerr := p.page(len(all))
	if rerr != nil {
		return nil, rerr
	}
	return map[string]any{"data": all[from:to], "nextCursor": next}, nil
}
