package model

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/grovecli/grove/protocol"
)

// Remote compaction, as Codex does it (openai/codex
// codex-rs/core/src/compact_remote.rs and codex-rs/codex-api/src/endpoint/
// compact.rs): the conversation goes to POST {base_url}/responses/compact
// as {"model","input","instructions"}, and the provider answers
// {"output":[…]}, the history to continue with: the user messages it kept
// and a "compaction" item whose encrypted_content carries the rest. Codex
// uses it where ModelProviderInfo::supports_remote_compaction holds
// (codex-rs/model-provider-info/src/lib.rs: the OpenAI provider, or an
// Azure Responses one); elsewhere it summarises with the model.

// Compactor is a Client whose provider can compact a conversation itself.
type Compactor interface {
	// CompactsRemotely reports whether the provider has a compact endpoint.
	CompactsRemotely() bool
	// Compact sends req's model, instructions and items to it and returns
	// the history to continue with.
	Compact(ctx context.Context, req Request) ([]protocol.Item, error)
}

// CompactsRemotely mirrors Codex's condition: the OpenAI provider (Codex
// checks the name "OpenAI"; grove's built-in is "openai") or an Azure one
// (named azure, or an Azure host in base_url), on the Responses API.
func (c *openAIClient) CompactsRemotely() bool {
	return c.cfg.WireAPI == "responses" && (strings.EqualFold(c.cfg.Name, "openai") || isAzure(c.cfg.Name, c.cfg.BaseURL))
}

// azureMarkers are the host fragments Codex takes for Azure
// (codex-rs/codex-api/src/provider.rs, matches_azure_responses_base_url).
var azureMarkers = []string{"openai.azure.", "cognitiveservices.azure.", "aoai.azure.", "azure-api.", "azurefd.", "windows.net/openai"}

func isAzure(name, baseURL string) bool {
	if strings.EqualFold(name, "azure") {
		return true
	}
	u := strings.ToLower(baseURL)
	for _, m := range azureMarkers {
		if strings.Contains(u, m) {
			return true
		}
	}
	return false
}

type compactRequest struct {
	Model        string `json:"model"`
	Input        []any  `json:"input"`
	Instructions string `json:"instructions"`
}

// Compact implements Compactor: one call, no streaming. A failure is an
// APIError; the caller falls back to summarising with the model.
func (c *openAIClient) Compact(ctx context.Context, req Request) ([]protocol.Item, error) {
	omit := c.omitted()
	body, err := json.Marshal(compactRequest{Model: req.Model, Input: responsesInput(req.Items, newArgumentReplay(req.Items), omit), Instructions: req.Instructions})
	if err != nil {
		return nil, fmt.Errorf("model provider %s: encode compaction: %w", c.cfg.Name, err)
	}
	hreq, err := c.newRequest(ctx, http.MethodPost, c.compactURL, reqBody{body})
	if err != nil {
		return nil, err
	}
	res, err := c.http.Do(hreq)
	if err != nil {
		return nil, &APIError{Provider: c.cfg.Name, URL: withoutQuery(c.compactURL), Message: redact(err.Error(), c.cfg.APIKey), Attempts: 1}
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		se, _ := c.httpError(res).(*streamError)
		return nil, &APIError{Provider: c.cfg.Name, URL: withoutQuery(c.compactURL), StatusCode: res.StatusCode, Message: se.msg, Attempts: 1, ContextWindowExceeded: se.contextExceeded}
	}
	raw, err := io.ReadAll(io.LimitReader(res.Body, int64(c.cfg.MaxMessageBytes)*8))
	if err != nil {
		return nil, fmt.Errorf("model provider %s: read compaction: %w", c.cfg.Name, err)
	}
	var out struct {
		Output []compactOutputItem `json:"output"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("model provider %s (%s): unreadable compaction reply: %w", c.cfg.Name, withoutQuery(c.compactURL), err)
	}
	items := keptCompactedItems(out.Output)
	if len(items) == 0 {
		return nil, fmt.Errorf("model provider %s (%s): the compaction reply kept nothing", c.cfg.Name, withoutQuery(c.compactURL))
	}
	return items, nil
}

type compactOutputItem struct {
	Type             string `json:"type"`
	Role             string `json:"role"`
	EncryptedContent string `json:"encrypted_content"`
	Content          []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

// keptCompactedItems keeps what Codex keeps of the endpoint's output
// (should_keep_compacted_history_item): user and assistant messages and
// the compaction item; developer messages, reasoning and calls are dropped.
func keptCompactedItems(output []compactOutputItem) []protocol.Item {
	var items []protocol.Item
	for _, o := range output {
		switch {
		case o.Type == "compaction" || o.Type == "compaction_summary":
			if o.EncryptedContent != "" {
				items = append(items, protocol.Item{Type: protocol.ItemCompaction, EncryptedContent: o.EncryptedContent})
			}
		case o.Type == "message" && (o.Role == protocol.RoleUser || o.Role == protocol.RoleAssistant):
			var b strings.Builder
			for _, p := range o.Content {
				b.WriteString(p.Text)
			}
			items = append(items, protocol.Item{Type: protocol.ItemMessage, Role: o.Role, Content: b.String()})
		}
	}
	return items
}
