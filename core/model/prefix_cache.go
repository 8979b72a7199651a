package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/grovecli/grove/protocol"
)

// PrefixCache keeps the encoded JSON of a conversation's settled prefix
// between one thread's requests, so each history item is encoded once and
// a request costs grove about the same at turn 10 and turn 5,000 (only its
// bytes are copied). A thread owns one and passes it in every Request; its
// history must only grow while it does (a replaced history gets a new
// cache). Safe for concurrent use.
type PrefixCache struct {
	mu      sync.Mutex
	key     string        // wire API and omitted parameters it was encoded for
	items   int           // items[:items] are encoded
	last    protocol.Item // items[items-1], checked before reuse
	encoded []byte        // their elements, comma-separated
	broken  map[string]bool
	// chain is the stored response the next request continues from
	// (store_responses; response_chain.go).
	chain responseChain
}

// NewPrefixCache returns an empty cache.
func NewPrefixCache() *PrefixCache { return &PrefixCache{} }

// reuse reports how many leading items are encoded for key and still the
// ones in items; the cache is emptied when they are not.
func (p *PrefixCache) reuse(key string, items []protocol.Item) int {
	if p.key == key && p.items > 0 && p.items <= len(items) && sameItem(p.last, items[p.items-1]) {
		return p.items
	}
	// A new buffer: a request still being sent may hold the old one.
	p.key, p.items, p.last, p.encoded, p.broken = key, 0, protocol.Item{}, nil, nil
	return 0
}

// extend appends the encoded elements of the next settled items.
func (p *PrefixCache) extend(items []protocol.Item, settled int, elems [][]byte) {
	if settled == 0 {
		return
	}
	for _, e := range elems {
		if len(p.encoded) > 0 {
			p.encoded = append(p.encoded, ',')
		}
		p.encoded = append(p.encoded, e...)
	}
	p.items += settled
	p.last = items[settled-1]
}

// sameItem compares two items; strings shared with the history compare
// by pointer first, so this is cheap for the unchanged prefix.
func sameItem(a, b protocol.Item) bool {
	return a.Type == b.Type && a.Role == b.Role && a.Content == b.Content && a.From == b.From &&
		slices.Equal(a.Images, b.Images) && a.CallID == b.CallID && a.Name == b.Name &&
		a.Arguments == b.Arguments && a.Output == b.Output && a.Summary == b.Summary &&
		a.EncryptedContent == b.EncryptedContent && a.Origin == b.Origin && a.Interrupted == b.Interrupted
}

// cacheKey names what an encoding depends on besides the items.
func cacheKey(wire string, omit map[string]bool) string {
	keys := make([]string, 0, len(omit))
	for k := range omit {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return wire + "|" + strings.Join(keys, ",")
}

// encodeCached builds the request body reusing req.Prefix: only the items
// after the cached prefix are converted and encoded; the settled ones are
// added to the cache.
func (c *openAIClient) encodeCached(req Request, omit map[string]bool) (reqBody, error) {
	p := req.Prefix
	p.mu.Lock()
	defer p.mu.Unlock()
	done := p.reuse(cacheKey(c.cfg.WireAPI, omit), req.Items)
	rest := req.Items[done:]
	// Calls whose arguments are replaced, for the outputs that follow:
	// those of the prefix are kept in the cache.
	scan := newArgumentReplay(rest)
	if p.broken == nil && scan.broken != nil {
		p.broken = map[string]bool{}
	}
	for id := range scan.broken {
		p.broken[id] = true
	}
	replay := argumentReplay{broken: p.broken}
	var field string
	var elems []any
	settled, settledElems := 0, 0
	var head any
	if c.cfg.WireAPI == "responses" {
		field = "input"
		elems = responsesInput(rest, replay, omit)
		settled, settledElems = len(rest), len(elems)
		// Every setting of the request, without its items (encoded
		// above); a field list here once lost reasoning.summary.
		settings := req
		settings.Items, settings.Prefix = nil, nil
		body, err := responsesBody(settings, omit)
		if err != nil {
			return nil, fmt.Errorf("model provider %s: build request: %w", c.cfg.Name, err)
		}
		body.Input = nil
		body.Store = c.cfg.StoreResponses
		head = struct {
			*responsesRequest
			Input struct{} `json:"input,omitzero"`
		}{responsesRequest: body}
	} else {
		field = "messages"
		msgs, clean, cleanMsgs := chatMessages(rest, replay, omit)
		for _, m := range msgs {
			elems = append(elems, m)
		}
		settled, settledElems = clean, cleanMsgs
		// The instructions are the first of the messages encoded above.
		settings := req
		settings.Items, settings.Prefix, settings.Instructions, settings.CacheKey = nil, nil, "", ""
		body, err := chatBody(settings, omit)
		if err != nil {
			return nil, fmt.Errorf("model provider %s: build request: %w", c.cfg.Name, err)
		}
		head = struct {
			*chatRequest
			Messages struct{} `json:"messages,omitzero"`
		}{chatRequest: body}
	}
	encoded := make([][]byte, len(elems))
	for i, e := range elems {
		b, err := json.Marshal(e)
		if err != nil {
			return nil, fmt.Errorf("model provider %s: encode request: %w", c.cfg.Name, err)
		}
		encoded[i] = b
	}
	p.extend(rest, settled, encoded[:settledElems])
	tail, err := json.Marshal(head)
	if err != nil {
		return nil, fmt.Errorf("model provider %s: encode request: %w", c.cfg.Name, err)
	}
	return spliceBody(field, c.systemMessage(req), p.encoded, encoded[settledElems:], tail)
}

// systemMessage is the chat system message carrying the instructions (nil
// for the Responses API, which has a field for them, or none to send).
func (c *openAIClient) systemMessage(req Request) []byte {
	if c.cfg.WireAPI == "responses" || req.Instructions == "" {
		return nil
	}
	b, _ := json.Marshal(chatMessage{Role: "system", Content: req.Instructions})
	return b
}

// spliceBody is {"<field>":[first,prefix,rest…],<the other fields>} in
// pieces; prefix is the cache's own bytes, shared, not copied.
func spliceBody(field string, first, prefix []byte, rest [][]byte, others []byte) (reqBody, error) {
	if len(others) < 2 || others[0] != '{' {
		return nil, fmt.Errorf("encode request: unexpected body %.40q", others)
	}
	var small bytes.Buffer // everything but the prefix
	small.WriteString(`{"` + field + `":[`)
	if len(first) > 0 {
		small.Write(first)
		if len(prefix) > 0 {
			small.WriteByte(',')
		}
	}
	head := small.Len()
	sep := len(first) > 0 || len(prefix) > 0
	for _, r := range rest {
		if sep {
			small.WriteByte(',')
		}
		small.Write(r)
		sep = true
	}
	small.WriteByte(']')
	if len(others) > 2 {
		small.WriteByte(',')
	}
	small.Write(others[1:])
	b := small.Bytes()
	return reqBody{b[:head:head], prefix[:len(prefix):len(prefix)], b[head:]}, nil
}
