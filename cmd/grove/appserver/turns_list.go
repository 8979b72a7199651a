package appserver

import (
	"slices"

	"github.com/grovecli/grove/protocol"
)

// threadTurnsList is Codex's thread/turns/list: one page of a loaded or
// stored thread's turns, so a client can show a long thread without
// hydrating all of it (thread/read includeTurns returns every turn in full).
func (s *Server) threadTurnsList(p protocol.AppThreadTurnsListParams) (any, *protocol.RPCError) {
	if p.ThreadID == "" {
		return nil, missing("threadId")
	}
	view, desc, limit, rerr := turnsListOptions(p)
	if rerr != nil {
		return nil, rerr
	}
	turns, rerr := s.threadTurns(p.ThreadID)
	if rerr != nil {
		return nil, rerr
	}
	if desc {
		slices.Reverse(turns)
	}
	start := 0
	if p.Cursor != nil && *p.Cursor != "" {
		start = slices.IndexFunc(turns, func(t protocol.AppTurn) bool { return t.ID == *p.Cursor })
		if start < 0 {
			return nil, rpcError(protocol.RPCInvalidParams, "invalid params: cursor: %q is not a turn of thread %s", *p.Cursor, p.ThreadID)
		}
	}
	end := min(start+limit, len(turns))
	resp := protocol.AppThreadTurnsListResponse{Data: turns[start:end]}
	for i := range resp.Data {
		resp.Data[i] = turnView(resp.Data[i], view)
	}
	if end < len(turns) {
		resp.NextCursor = &turns[end].ID
	}
	if len(resp.Data) > 0 {
		// The first turn of the page, paged the other way, comes back
		// first: a client polls it for turns newer than what it shows.
		resp.BackwardsCursor = &resp.Data[0].ID
	}
	return resp, nil
}

// turnsListOptions validates thread/turns/list's view, direction and page
// size (defaults: summary, desc, 50).
func turnsListOptions(p protocol.AppThreadTurnsListParams) (view string, desc bool, limit int, rerr *protocol.RPCError) {
	view, desc, limit = "summary", true, 50
	if p.ItemsView != nil {
		if view = *p.ItemsView; view != "full" && view != "summary" && view != "notLoaded" {
			return "", false, 0, rpcError(protocol.RPCInvalidParams, "invalid params: itemsView: %q is not full, summary or notLoaded", view)
		}
	}
	if p.SortDirection != nil {
		switch *p.SortDirection {
		case "asc":
			desc = false
		case "desc":
		default:
			return "", false, 0, rpcError(protocol.RPCInvalidParams, "invalid params: sortDirection: %q is not asc or desc", *p.SortDirection)
		}
	}
	if p.Limit != nil {
		if *p.Limit <= 0 || *p.Limit > 1000 {
			return "", false, 0, rpcError(protocol.RPCInvalidParams, "invalid params: limit: must be 1..1000")
		}
		limit = *p.Limit
	}
	return view, desc, limit, nil
}

// threadTurns is every turn of a loaded or stored thread, oldest first.
func (s *Server) threadTurns(id string) ([]protocol.AppTurn, *protocol.RPCError) {
	if t := s.loaded(id); t != nil {
		if s.unmaterialized(t) {
			return []protocol.AppTurn{}, nil
		}
		s.mu.Lock()
		info := t.info
		s.mu.Unlock()
		return turnsFromHistory(info.ID, t.sess.eng.History(info.ID), info.Cwd), nil
	}
	th, err := s.storedThread(id, true)
	if err != nil {
		return nil, rpcError(protocol.RPCInvalidParams, "invalid params: threadId: %v", err)
	}
	return th.Turns, nil
}

// turnView trims a full turn to the requested items view: summary keeps
// the user's messages and the final agent message (Codex's thread_read.rs
// thread_turns_list_supports_requested_items_view), notLoaded no items.
func turnView(t protocol.AppTurn, view string) protocol.AppTurn {
	t.ItemsView = view
	switch view {
	case "notLoaded":
		t.Items = []any{}
	case "summary":
		last := -1
		for i, it := range t.Items {
			if _, ok := it.(protocol.AppAgentMessageItem); ok {
				last = i
			}
		}
		items := []any{}
		for i, it := range t.Items {
			if _, user := it.(protocol.AppUserMessageItem); user || i == last {
				items = append(items, it)
			}
		}
		t.Items = items
	}
	return t
}
