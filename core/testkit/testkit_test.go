package testkit

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
)

func TestEventuallyReturnsOnceTheConditionHolds(t *testing.T) {
	var n atomic.Int32
	Eventually(t, "three polls", func() bool { return n.Add(1) >= 3 })
	if n.Load() != 3 {
		t.Fatalf("polled %d times, want 3", n.Load())
	}
}

func TestGoldenWritesUnderUpdateAndComparesOtherwise(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "x.golden")
	t.Setenv("GROVE_UPDATE_GOLDEN", "1")
	Golden(t, path, []byte("one\n"))
	if b, _ := os.ReadFile(path); string(b) != "one\n" {
		t.Fatalf("update wrote %q", b)
	}
	t.Setenv("GROVE_UPDATE_GOLDEN", "")
	Golden(t, path, []byte("one\n"))
}
