package safefile

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestReadFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	want := bytes.Repeat([]byte("grove\n"), 50000) // several reads
	if err := os.WriteFile(p, want, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(p)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("read %d bytes, err %v", len(got), err)
	}
	if _, err := ReadFile(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Fatal("missing file read without error")
	}
}
