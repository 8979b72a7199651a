package model

import (
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/grovecli/grove/protocol"
)

// Response chaining (store_responses): the provider keeps each response
// (store: true), and a thread's next request sends only the items that
// came after the last response — the tool outputs and messages added
// since — with previous_response_id naming it. The provider already holds
// everything before: the earlier input and the response's own output. The
// bytes sent per request then stay flat however long the session grows.
//
// The chain lives in the thread's PrefixCache, so a replaced history
// (compaction) or a new thread (resume, fork) starts a new chain with the
// whole history. A response the provider no longer has (expired, deleted)
// costs one refused request: the same request goes again with the whole
// history, once, and the chain restarts from its response.

// responseChain is the stored response a thread's next request can
// continue from.
type responseChain struct {
	id      string        // the response's id
	items   int           // the request's items, all held by the provider
	last    protocol.Item // items[items-1], checked before continuing
	outputs int           // items the response added to the history
}

// chainStart returns the response to continue from and the index of the
// first item to send; ok is false when the request must carry the whole
// history (no chain, or the history is not the one the chain follows).
func (p *PrefixCache) chainStart(items []protocol.Item) (id string, start int, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.chain
	if c.id == "" || c.items == 0 || c.items > len(items) || !sameItem(items[c.items-1], c.last) {
		return "", 0, false
	}
	// The response's own items come next: the provider has them. Anything
	// else between them (a message delivered mid-reply) would be lost, so
	// a count that differs sends everything.
	end := c.items
	for end < len(items) && isReplyItem(items[end]) {
		end++
	}
	if end-c.items != c.outputs || end == len(items) {
		return "", 0, false
	}
	return c.id, end, true
}

// setChain records the response a request got; an empty id ends the chain.
func (p *PrefixCache) setChain(id string, items []protocol.Item, outputs int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if id == "" || len(items) == 0 {
		p.chain = responseChain{}
		return
	}
	p.chain = responseChain{id: id, items: len(items), last: items[len(items)-1], outputs: outputs}
}

// isReplyItem: an item a model response adds to the history.
func isReplyItem(it protocol.Item) bool {
	switch it.Type {
	case protocol.ItemReasoning, protocol.ItemFunctionCall:
		return true
	case protocol.ItemMessage:
		return it.Role == protocol.RoleAssistant
	}
	return false
}

// replyItems is how many items the engine adds to the history for resp:
// its reasoning (the replayable items, else one summary), its message, its
// calls.
func replyItems(resp Response) int {
	n := len(resp.ReasoningItems)
	if n == 0 && resp.Reasoning != "" {
		n = 1
	}
	if resp.Text != "" {
		n++
	}
	return n + len(resp.ToolCalls)
}

// chains reports whether requests of this client continue stored responses.
func (c *openAIClient) chains(req Request) bool {
	return c.cfg.StoreResponses && c.cfg.WireAPI == "responses" && req.Prefix != nil && !c.noChain.Load()
}

// encodeChained is the request continuing response prev: the items from
// start on, with previous_response_id.
func (c *openAIClient) encodeChained(req Request, omit map[string]bool, prev string, start int) (reqBody, error) {
	rest := req
	rest.Items = req.Items[start:]
	body, err := responsesBody(rest, omit)
	if err != nil {
		return nil, fmt.Errorf("model provider %s: build request: %w", c.cfg.Name, err)
	}
	body.Store, body.PreviousResponseID = true, prev
	payload, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("model provider %s: encode request: %w", c.cfg.Name, err)
	}
	return reqBody{payload}, nil
}

// previousGone matches the refusal of a previous_response_id the provider
// does not hold (OpenAI: 400, code previous_response_not_found, "Previous
// response with id '…' not found."; other servers word it differently).
var previousGone = regexp.MustCompile(`(?i)previous[ _]response.*(not found|expired|unknown|does not exist|no longer|invalid)`)

func previousMissing(code any, msg string) bool {
	if s, ok := code.(string); ok && s == "previous_response_not_found" {
		return true
	}
	return previousGone.MatchString(msg)
}
