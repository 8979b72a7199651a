package protocol

// EventWebSearch is a hosted web search the model ran during a reply (a
// Responses web_search_call item): shown, recorded, never run by grove.
const EventWebSearch EventType = "web_search"

// WebSearchCall is one web_search_call item.
type WebSearchCall struct {
	ID     string `json:"id"`
	Status string `json:"status,omitempty"` // completed, failed, …
	// Action is what the search did: "search" (Query), "open_page" (URL)
	// or "find_in_page" (Pattern in URL).
	Action  string `json:"action,omitempty"`
	Query   string `json:"query,omitempty"`
	URL     string `json:"url,omitempty"`
	Pattern string `json:"pattern,omitempty"`
}

// WebSearchMsg reports one web search.
type WebSearchMsg struct{ Call WebSearchCall }

func (WebSearchMsg) Kind() EventType { return EventWebSearch }
func (WebSearchMsg) isEventMsg()     {}
