package engine

import "testing"

// TestRegisteredToolSchemasCompile: schemas compile on a tool's first call
// (not at start-up), so every tool the engine registers, surfaces'
// included, is compiled here once.
func TestRegisteredToolSchemasCompile(t *testing.T) {
	env := newEnv(t, script{}, nil)
	if err := env.e.tools.CheckSchemas(); err != nil {
		t.Fatal(err)
	}
}
