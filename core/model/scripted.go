package model

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// ScriptFunc decides a scripted provider's reply to one request.
type ScriptFunc func(ctx context.Context, req Request) (Response, error)

// Scripted is a Client whose replies come from a function: engine tests and
// the offline demo drive the real engine with it. It is safe for concurrent
// Stream calls (its state is fixed at construction) as long as the script
// itself is.
type Scripted struct {
	name      string
	fn        ScriptFunc
	delay     time.Duration
	models    []ModelInfo
	modelsErr error
}

// ScriptedOption configures a Scripted provider.
type ScriptedOption func(*Scripted)

// WithChunkDelay pauses between streamed chunks (the demo uses it so a
// person can watch text arrive).
func WithChunkDelay(d time.Duration) ScriptedOption { return func(s *Scripted) { s.delay = d } }

// WithModels sets what Models returns.
func WithModels(m []ModelInfo) ScriptedOption {
	return func(s *Scripted) { s.models, s.modelsErr = slices.Clone(m), nil }
}

// WithModelsError makes Models fail with err.
func WithModelsError(err error) ScriptedOption { return func(s *Scripted) { s.modelsErr = err } }

// NewScripted returns a scripted provider.
func NewScripted(name string, fn ScriptFunc, opts ...ScriptedOption) *Scripted {
	s := &Scripted{name: name, fn: fn, modelsErr: ErrModelsUnsupported}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Name implements Client.
func (s *Scripted) Name() string { return s.name }

// Models implements Client.
func (s *Scripted) Models(context.Context) ([]ModelInfo, error) {
	if s.modelsErr != nil {
		return nil, s.modelsErr
	}
	return slices.Clone(s.models), nil
}

// Stream implements Client: it asks the script, then streams the reply's
// reasoning and text in word-sized chunks, pausing between chunks when a
// chunk delay is set. Cancellation stops it between chunks.
func (s *Scripted) Stream(ctx context.Context, req Request, onDelta func(Delta)) (Response, error) {
	if err := ctx.Err(); err != nil {
		return Response{}, err
	}
	if s.fn == nil {
		return Response{}, fmt.Errorf("scripted provider %s: no script", s.name)
	}
	resp, err := s.fn(ctx, req)
	if err != nil {
		return Response{}, err
	}
	if onDelta != nil {
		for _, d := range []Delta{{Kind: DeltaReasoning, Text: resp.Reasoning}, {Kind: DeltaText, Text: resp.Text}} {
			for _, chunk := range chunks(d.Text) {
				if err := s.pause(ctx); err != nil {
					return Response{}, err
				}
				onDelta(Delta{Kind: d.Kind, Text: chunk})
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return Response{}, err
	}
	return resp, nil
}

// pause waits the chunk delay, or until ctx ends.
func (s *Scripted) pause(ctx context.Context) error {
	if s.delay <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(s.delay)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// chunks splits text after spaces and newlines, keeping every byte.
func chunks(text string) []string {
	var out []string
	for len(text) > 0 {
		i := strings.IndexAny(text, " \n")
		if i < 0 {
			out = append(out, text)
			break
		}
		out = append(out, text[:i+1])
		text = text[i+1:]
	}
	return out
}
