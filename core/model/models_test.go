package model_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/model/modeltest"
	"github.com/grovecli/grove/core/testkit"
)

func ids(list []model.ModelInfo) []string {
	var out []string
	for _, m := range list {
		out = append(out, m.ID)
	}
	return out
}

func TestModelsListedAndCached(t *testing.T) {
	s := modeltest.NewServer(t)
	s.SetModels([]string{"gpt-a", "gpt-b"})
	c := client(t, s, "chat")
	for range 3 {
		list, err := c.Models(context.Background())
		if err != nil || !reflect.DeepEqual(ids(list), []string{"gpt-a", "gpt-b"}) {
			t.Fatalf("%v %v", list, err)
		}
		list[0].ID = "mutated" // callers get copies
	}
	s.SetModelsStatus(503)
	if list, err := c.Models(context.Background()); err != nil || len(list) != 2 {
		t.Fatalf("cached list expected: %v %v", list, err)
	}
	if n := s.ModelsRequests(); n != 1 {
		t.Fatalf("%d requests for a cached list", n)
	}
	if got := s.Requests(); len(got) != 0 {
		t.Fatalf("model list counted as model calls: %d", len(got))
	}
}

func TestModelsTTLExpires(t *testing.T) {
	s := modeltest.NewServer(t)
	c := client(t, s, "chat", func(c *model.ProviderConfig) { c.ModelsTTL = time.Nanosecond })
	if _, err := c.Models(context.Background()); err != nil {
		t.Fatal(err)
	}
	s.SetModelsStatus(500)
	if _, err := c.Models(context.Background()); !errors.Is(err, model.ErrModelsUnavailable) {
		t.Fatalf("expired cache should refetch: %v", err)
	}
	if n := s.ModelsRequests(); n != 2 {
		t.Fatalf("%d requests", n)
	}
}

func TestModelsErrorMapping(t *testing.T) {
	for _, tc := range []struct {
		status int
		want   error
		cached bool
	}{
		{404, model.ErrModelsUnsupported, true},
		{405, model.ErrModelsUnsupported, true},
		{501, model.ErrModelsUnsupported, true},
		{500, model.ErrModelsUnavailable, false},
		{503, model.ErrModelsUnavailable, false},
		{401, model.ErrModelsUnavailable, false},
		{429, model.ErrModelsUnavailable, false},
	} {
		t.Run(http.StatusText(tc.status), func(t *testing.T) {
			s := modeltest.NewServer(t)
			s.SetModelsStatus(tc.status)
			c := client(t, s, "responses")
			for range 2 {
				_, err := c.Models(context.Background())
				if !errors.Is(err, tc.want) {
					t.Fatalf("HTTP %d: %v", tc.status, err)
				}
				if tc.want == model.ErrModelsUnavailable && !contains(err.Error(), "mock", "/models") {
					t.Fatalf("error does not name the provider: %v", err)
				}
			}
			if want := map[bool]int{true: 1, false: 2}[tc.cached]; s.ModelsRequests() != want {
				t.Fatalf("%d requests, want %d", s.ModelsRequests(), want)
			}
		})
	}
}

func TestModelsUnreachableOrSlow(t *testing.T) {
	s := modeltest.Start()
	base := s.URL()
	s.Close()
	c, _ := model.New(model.ProviderConfig{Name: "gone", BaseURL: base})
	if _, err := c.Models(context.Background()); !errors.Is(err, model.ErrModelsUnavailable) || !contains(err.Error(), "refused") {
		t.Fatalf("refused: %v", err)
	}

	stuck := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer stuck.Close()
	c, _ = model.New(model.ProviderConfig{Name: "stuck", BaseURL: stuck.URL, ModelsTimeout: 50 * time.Millisecond})
	if _, err := c.Models(context.Background()); !errors.Is(err, model.ErrModelsUnavailable) {
		t.Fatalf("timeout: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Models(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}

func TestModelsBodyShapes(t *testing.T) {
	for _, tc := range []struct {
		body string
		want []string
		err  error
	}{
		{`{"object":"list","data":[{"id":"a"},{"id":"b"}]}`, []string{"a", "b"}, nil},
		{`{"models":[{"name":"llama3"}]}`, []string{"llama3"}, nil},
		{`{"data":[]}`, nil, nil},
		{`{"object":"list"}`, nil, model.ErrModelsUnavailable},
		{`<html>`, nil, model.ErrModelsUnavailable},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(tc.body))
		}))
		c, _ := model.New(model.ProviderConfig{Name: "p", BaseURL: srv.URL})
		list, err := c.Models(context.Background())
		srv.Close()
		if !errors.Is(err, tc.err) || !reflect.DeepEqual(ids(list), tc.want) {
			t.Errorf("%s: %v %v", tc.body, ids(list), err)
		}
	}
}

// Concurrent callers share one fetch; a caller that gives up while waiting
// gets its own ctx error.
func TestModelsConcurrentCallersShareOneFetch(t *testing.T) {
	var served atomic.Int32
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		<-release
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"data":[{"id":"m"}]}`))
	}))
	defer srv.Close()
	c, _ := model.New(model.ProviderConfig{Name: "p", BaseURL: srv.URL})
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			if list, err := c.Models(context.Background()); err != nil || len(list) != 1 {
				t.Errorf("%v %v", list, err)
			}
		})
	}
	testkit.Eventually(t, "the first models request", func() bool { return served.Load() > 0 })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Models(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("waiter with a cancelled ctx: %v", err)
	}
	close(release)
	wg.Wait()
	if n := served.Load(); n != 1 {
		t.Fatalf("%d fetches", n)
	}
}
