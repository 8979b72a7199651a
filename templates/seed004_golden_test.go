package templates

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/grovecli/grove/core/testkit"
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
	testkit.Golden(t, filepath.Join("testdata", "seed004", "code-reviewer.golden.json"), got)
}
