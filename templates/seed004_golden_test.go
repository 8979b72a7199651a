package templates

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// Seed 004 gives AgentDefinition as Rust with serde camelCase: the seed's
// own YAML example (testdata/seed004, verbatim) loads, and grove's Go
// type encodes it with the seed's field names and enum strings. The
// golden file pins that JSON, including what grove leaves out where
// serde would write null (an absent optional: omitted, never null).
func TestSeed004DefinitionGolden(t *testing.T) {
	src, err := os.ReadFile("testdata/seed004/code-reviewer.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := writeAgents(t, map[string]string{"code-reviewer.yaml": string(src)})
	cat := Load(Dirs{Cwd: dir}, Options{})
	tpl, err := cat.Lookup("code-reviewer")
	if err != nil {
		t.Fatalf("the seed's example does not load: %v (problems %v)", err, cat.Problems())
	}
	got, err := json.MarshalIndent(tpl.Task, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	golden := filepath.Join("testdata", "seed004", "code-reviewer.golden.json")
	if os.Getenv("GROVE_UPDATE_GOLDEN") == "1" { // as schematest.Golden
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (GROVE_UPDATE_GOLDEN=1 writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("definition JSON differs from %s:\n%s", golden, got)
	}
}
