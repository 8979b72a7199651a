package model_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/grovecli/grove/core/model"
)

func TestScriptedStreamsInWordChunks(t *testing.T) {
	sc := model.NewScripted("demo", func(_ context.Context, r model.Request) (model.Response, error) {
		return model.Response{Reasoning: "think first", Text: "Hello there,\nworld  ok", ToolCalls: []model.ToolCallRequest{{CallID: "c", Name: "wait"}}}, nil
	})
	var col collector
	resp, err := sc.Stream(context.Background(), model.Request{}, col.on)
	if err != nil {
		t.Fatal(err)
	}
	var chunks []string
	for _, d := range col.deltas {
		if d.Kind == model.DeltaText {
			chunks = append(chunks, d.Text)
		}
	}
	if strings.Join(chunks, "|") != "Hello |there,\n|world | |ok" {
		t.Fatalf("chunks %q", chunks)
	}
	if col.text.String() != resp.Text || col.reason.String() != "think first" || len(resp.ToolCalls) != 1 || sc.Name() != "demo" {
		t.Fatalf("%+v, streamed %q / %q", resp, col.text.String(), col.reason.String())
	}
}

func TestScriptedConcurrent(t *testing.T) {
	sc := model.NewScripted("s", func(_ context.Context, r model.Request) (model.Response, error) {
		return model.Response{Text: "echo " + r.Model + " done"}, nil
	}, model.WithChunkDelay(time.Microsecond))
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Go(func() {
			m := strings.Repeat("x", i%7+1)
			var col collector
			resp, err := sc.Stream(context.Background(), model.Request{Model: m}, col.on)
			if want := "echo " + m + " done"; err != nil || col.text.String() != want || resp.Text != want {
				t.Errorf("%v %q", err, col.text.String())
			}
		})
	}
	wg.Wait()
}

func TestScriptedHonoursContextBetweenChunks(t *testing.T) {
	sc := model.NewScripted("slow", func(context.Context, model.Request) (model.Response, error) {
		return model.Response{Text: "one two three four"}, nil
	}, model.WithChunkDelay(time.Hour))
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		// Cancel once Stream is blocked waiting for its first chunk.
		go func() { synctest.Wait(); cancel() }()
		var col collector
		if _, err := sc.Stream(ctx, model.Request{}, col.on); !errors.Is(err, context.Canceled) {
			t.Fatalf("want Canceled, got %v", err)
		}
		if col.text.Len() != 0 {
			t.Fatalf("streamed %q after cancel", col.text.String())
		}
	})
}

func TestScriptedErrorsAndModels(t *testing.T) {
	boom := errors.New("boom")
	sc := model.NewScripted("s", func(context.Context, model.Request) (model.Response, error) { return model.Response{}, boom })
	if _, err := sc.Stream(context.Background(), model.Request{}, nil); !errors.Is(err, boom) {
		t.Fatal(err)
	}
	if _, err := sc.Models(context.Background()); !errors.Is(err, model.ErrModelsUnsupported) {
		t.Fatalf("default models: %v", err)
	}
	if _, err := model.NewScripted("nil", nil).Stream(context.Background(), model.Request{}, nil); err == nil || !strings.Contains(err.Error(), "no script") {
		t.Fatalf("nil script: %v", err)
	}
	list := []model.ModelInfo{{ID: "a", ReasoningEfforts: []string{"low"}}}
	withList := model.NewScripted("s", nil, model.WithModels(list))
	list[0].ID = "changed"
	if got, err := withList.Models(context.Background()); err != nil || len(got) != 1 || got[0].ID != "a" {
		t.Fatalf("%v %v", got, err)
	}
	if _, err := model.NewScripted("s", nil, model.WithModelsError(model.ErrModelsUnavailable)).Models(context.Background()); !errors.Is(err, model.ErrModelsUnavailable) {
		t.Fatal(err)
	}
}
