// Package schematest snapshots the tool schemas the model sees, so a change
// to the generator or a parameter struct shows up as a reviewed golden diff.
package schematest

import (
	"bytes"
	"encoding/json"
	"sort"
	"testing"

	"github.com/grovecli/grove/core/testkit"
)

// Golden compares schemas (tool name → JSON Schema) with the golden file at
// path, after canonicalising each one (sorted keys, indented), so that key
// order does not matter but every keyword does. -update (or
// GROVE_UPDATE_GOLDEN=1) rewrites the file instead.
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
	testkit.Golden(t, path, buf.Bytes())
}
