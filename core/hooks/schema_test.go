package hooks

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// validate checks a hook's stdin against Codex's schema for its event
// (testdata/codex-schema, see testdata/SOURCES.md).
func validate(t *testing.T, name string, stdin []byte) {
	t.Helper()
	path := filepath.Join("testdata", "codex-schema", name+".command.input.schema.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(name+".json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(name + ".json")
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(stdin))
	if err != nil {
		t.Fatalf("%s stdin is not JSON: %v\n%s", name, err, stdin)
	}
	if err := sch.Validate(v); err != nil {
		t.Errorf("%s stdin does not match Codex's schema: %v\n%s", name, err, stdin)
	}
}
