// Package schematest snapshots the tool schemas the model sees, so a change
// to the generator or a parameter struct shows up as a reviewed golden diff.
package schematest

import (
	"bytes"
	"encoding/json"
	"os"
	"sort"
	"testing"
)

// Golden compares schemas (tool name → JSON Schema) with the golden file at
// path, after canonicalising each one (sorted keys, indented), so that key
// order does not matter but every keyword does. GROVE_UPDATE_GOLDEN=1
// rewrites the file instead.
func Golden(t testing.TB, path string, schemas map[string]json.RawMessage) {
	t.Helper()
	names := make([]string, 0, len(schemas))
	for n := range schemas {
		names = append(names, n)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	for _, n := range names {
		var doc any
		if err := json.Unmarshal(schemas[n], &doc); err != nil {
			t.Fatalf("schema of %s: %v", n, err)
		}
		b, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		buf.WriteString("== " + n + "\n")
		buf.Write(b)
		buf.WriteString("\n")
	}
	if os.Getenv("GROVE_UPDATE_GOLDEN") == "1" {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (GROVE_UPDATE_GOLDEN=1 writes it): %v", err)
	}
	if !bytes.Equal(want, buf.Bytes()) {
		t.Errorf("tool schemas differ from %s (GROVE_UPDATE_GOLDEN=1 rewrites it after review):\n got:\n%s", path, buf.String())
	}
}
