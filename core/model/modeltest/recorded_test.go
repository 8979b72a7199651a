package modeltest_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/grovecli/grove/core/model/modeltest"
)

// Both recording formats load to the same payloads.
func TestLoadFixtureFormats(t *testing.T) {
	dir := t.TempDir()
	jsonl := filepath.Join(dir, "a.jsonl")
	sse := filepath.Join(dir, "a.sse")
	_ = os.WriteFile(jsonl, []byte("{\"a\":1}\n\n{\"b\":2}\n"), 0o600)
	_ = os.WriteFile(sse, []byte(": keep-alive\nevent: x\ndata: {\"a\":1}\n\ndata:{\"b\":2}\n\ndata: [DONE]\n\n"), 0o600)
	want := []string{`{"a":1}`, `{"b":2}`}
	for _, p := range []string{jsonl, sse} {
		got, err := modeltest.LoadFixture(p)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: %q %v", p, got, err)
		}
	}
	if _, err := modeltest.LoadFixture(filepath.Join(dir, "missing")); err == nil {
		t.Fatal("missing file loaded")
	}
}
