// Package demo is grove's offline demo model: a scripted provider that
// drives the real engine and real tools in a scratch directory, so a new
// user sees a whole agent tree before configuring a model.
package demo

import (
	"fmt"
	"os"
	"path/filepath"
)

// Prompt is the first user message of a demo session.
const Prompt = "Show me what grove can do: survey this little project and add a greeting to the service."

// scratchFiles is the project the demo agents work on.
var scratchFiles = map[string]string{
	"README.md":             "# hello-grove\n\nA tiny project for the grove demo.\n\n- `main.go` prints a greeting\n- `service/` holds the greeting logic\n",
	"main.go":               "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello from grove\")\n}\n",
	"service/greet.go":      "package service\n\n// Greet returns a greeting for name.\nfunc Greet(name string) string {\n\treturn \"hello, \" + name\n}\n",
	"service/greet_test.go": "package service\n\nimport \"testing\"\n\nfunc TestGreet(t *testing.T) {\n\tif Greet(\"ada\") != \"hello, ada\" {\n\t\tt.Fatal(Greet(\"ada\"))\n\t}\n}\n",
}

// NewScratch creates the demo project in a fresh temporary directory.
func NewScratch() (string, error) {
	dir, err := os.MkdirTemp("", "grove-demo-")
	if err != nil {
		return "", fmt.Errorf("demo scratch directory: %w", err)
	}
	for name, body := range scratchFiles {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", fmt.Errorf("demo scratch %s: %w", p, err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return "", fmt.Errorf("demo scratch %s: %w", p, err)
		}
	}
	return dir, nil
}
