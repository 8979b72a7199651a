// Package testkit is the one test-support package: waiting for a condition, failing on an
// error, and golden files with one update convention (`-update`, or GROVE_UPDATE_GOLDEN=1). It
// imports only the standard library so that every layer's tests can use it.
package testkit

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// WaitLimit bounds every Eventually: generous, because CI shares two cores with the race
// detector; a condition that holds returns at once.
const WaitLimit = 60 * time.Second

// Eventually waits until cond holds, for a condition that no event announces (a process
// gone, a file written by another process). diag, when given, explains a time-out.
func Eventually(t testing.TB, what string, cond func() bool, diag ...func() string) {
	t.Helper()
	if cond() {
		return
	}
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := time.NewTimer(WaitLimit)
	defer deadline.Stop()
	for {
		select {
		case <-tick.C:
			if cond() {
				return
			}
		case <-deadline.C:
			msg := ""
			for _, d := range diag {
				msg += "\n" + d()
			}
			t.Fatalf("timed out after %s waiting for %s%s", WaitLimit, what, msg)
		}
	}
}

// Must fails the test at once on a non-nil error.
func Must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// MustGet returns v, or fails the test at once on a non-nil error.
func MustGet[T any](t testing.TB, v T, err error) T {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// The -update flag is shared with charmbracelet's x/exp/golden (teatest imports it): whichever
// package initialises first defines it (x/exp/golden does, by import-path order) and the other
// reads the same flag.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite golden files instead of comparing (GROVE_UPDATE_GOLDEN=1 does the same across ./...)")
	}
}

// UpdateGolden reports whether this run rewrites golden files: `go test ./pkg -update`, or
// GROVE_UPDATE_GOLDEN=1 for a run over packages some of which have no golden files.
func UpdateGolden() bool {
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		return true
	}
	return os.Getenv("GROVE_UPDATE_GOLDEN") == "1"
}

// Golden compares got with the file at path; under UpdateGolden it writes got there
// instead (creating the folder), to be reviewed as a diff.
func Golden(t testing.TB, path string, got []byte) {
	t.Helper()
	if UpdateGolden() {
		Must(t, os.MkdirAll(filepath.Dir(path), 0o755))
		Must(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (-update writes it): %v", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs from its golden file (-update rewrites it after review)\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}
