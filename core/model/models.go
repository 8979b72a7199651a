package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"
)

// modelsCache holds the last model list (or the fact that there is none)
// and the fetch in flight, which concurrent callers share.
type modelsCache struct {
	mu          sync.Mutex
	list        []ModelInfo
	unsupported bool
	at          time.Time // zero: nothing cached
	flight      *modelsFlight
}

type modelsFlight struct {
	done      chan struct{}
	list      []ModelInfo
	err       error
	cancelled bool // the fetching caller gave up; waiters fetch again
}

// Models implements Client: GET {base}/models, cached for ModelsTTL.
// 404/405/501 mean the provider has no list (ErrModelsUnsupported, cached
// too); network errors, timeouts and other statuses are
// ErrModelsUnavailable and not cached.
func (c *openAIClient) Models(ctx context.Context) ([]ModelInfo, error) {
	m := &c.models
	for {
		m.mu.Lock()
		if !m.at.IsZero() && time.Since(m.at) < c.cfg.ModelsTTL {
			list, unsupported := m.list, m.unsupported
			m.mu.Unlock()
			if unsupported {
				return nil, ErrModelsUnsupported
			}
			return slices.Clone(list), nil
		}
		if f := m.flight; f != nil {
			m.mu.Unlock()
			select {
			case <-f.done:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			if f.cancelled {
				continue
			}
			return slices.Clone(f.list), f.err
		}
		f := &modelsFlight{done: make(chan struct{})}
		m.flight = f
		m.mu.Unlock()

		f.list, f.err = c.fetchModels(ctx)
		f.cancelled = ctx.Err() != nil && f.err != nil

		m.mu.Lock()
		m.flight = nil
		switch {
		case f.err == nil:
			m.list, m.unsupported, m.at = f.list, false, time.Now()
		case errors.Is(f.err, ErrModelsUnsupported):
			m.list, m.unsupported, m.at = nil, true, time.Now()
		}
		m.mu.Unlock()
		close(f.done)
		return slices.Clone(f.list), f.err
	}
}

// fetchModels does one GET /models.
func (c *openAIClient) fetchModels(parent context.Context) ([]ModelInfo, error) {
	ctx, cancel := context.WithTimeout(parent, c.cfg.ModelsTimeout)
	defer cancel()
	req, err := c.newRequest(ctx, http.MethodGet, c.modelsURL, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	res, err := c.http.Do(req)
	if err != nil {
		if parent.Err() != nil {
			return nil, parent.Err()
		}
		return nil, fmt.Errorf("%w: model provider %s (%s): %s", ErrModelsUnavailable, c.cfg.Name, withoutQuery(c.modelsURL), c.transportError(err).Error())
	}
	defer res.Body.Close()
	switch s := res.StatusCode; {
	case s == http.StatusNotFound || s == http.StatusMethodNotAllowed || s == http.StatusNotImplemented:
		return nil, fmt.Errorf("%w: model provider %s (%s): HTTP %d", ErrModelsUnsupported, c.cfg.Name, withoutQuery(c.modelsURL), s)
	case s >= 300:
		return nil, fmt.Errorf("%w: model provider %s (%s): HTTP %d: %s", ErrModelsUnavailable, c.cfg.Name, withoutQuery(c.modelsURL), s, c.httpError(res).Error())
	}
	// OpenAI and most servers answer {"data":[{"id":…}]}; a few use
	// "models" and "name".
	var page struct {
		Data   *[]modelEntry `json:"data"`
		Models *[]modelEntry `json:"models"`
	}
	if err := json.NewDecoder(io.LimitReader(res.Body, maxBody)).Decode(&page); err != nil {
		if parent.Err() != nil {
			return nil, parent.Err()
		}
		return nil, fmt.Errorf("%w: model provider %s (%s): unreadable model list: %v", ErrModelsUnavailable, c.cfg.Name, withoutQuery(c.modelsURL), err)
	}
	entries := page.Data
	if entries == nil {
		entries = page.Models
	}
	if entries == nil {
		return nil, fmt.Errorf("%w: model provider %s (%s): no \"data\" list in the reply", ErrModelsUnavailable, c.cfg.Name, c.modelsURL)
	}
	var out []ModelInfo
	for _, e := range *entries {
		id := e.ID
		if id == "" {
			id = e.Name
		}
		if id != "" {
			out = append(out, ModelInfo{ID: id, ContextWindow: e.contextWindow()})
		}
	}
	return out, nil
}

type modelEntry struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// The context window, under the names servers use for it: Codex-style
	// and LiteLLM context_window, OpenRouter context_length, vLLM
	// max_model_len, LM Studio max_context_length.
	ContextWindow    lenientInt `json:"context_window"`
	ContextLength    lenientInt `json:"context_length"`
	MaxModelLen      lenientInt `json:"max_model_len"`
	MaxContextLength lenientInt `json:"max_context_length"`
}

func (e modelEntry) contextWindow() int64 {
	for _, n := range []lenientInt{e.ContextWindow, e.ContextLength, e.MaxModelLen, e.MaxContextLength} {
		if n > 0 {
			return int64(n)
		}
	}
	return 0
}

// lenientInt reads a number (or a numeric string); anything else is 0, so
// an odd metadata field never costs the whole model list.
type lenientInt int64

func (n *lenientInt) UnmarshalJSON(b []byte) error {
	var f float64
	if json.Unmarshal(b, &f) != nil {
		var s string
		if json.Unmarshal(b, &s) != nil {
			return nil
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil
		}
		f = v
	}
	if f > 0 && f < 1e12 {
		*n = lenientInt(f)
	}
	return nil
}
