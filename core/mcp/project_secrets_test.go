package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grovecli/grove/protocol"
)

// Issue 31.3: a model-written .mcp.json names ${VAR}s of grove's
// environment. Secrets are not expanded (only what a sandboxed command's
// scrubbed environment holds is), the approval request shows the entry as
// written, and a warning says what was withheld and how to pass a secret.
func TestProjectFileDoesNotExpandSecrets(t *testing.T) {
	const secret = "sekrit-4f9a2c71"
	t.Setenv("GROVE_T_DEPLOY_TOKEN", secret)
	t.Setenv("GROVE_T_REGION", "eu-west-1")
	entry := projectEntry("serve")
	entry["args"] = []string{"--key=${GROVE_T_DEPLOY_TOKEN}", "--region=${GROVE_T_REGION}", "${GROVE_T_UNSET:-fallback}"}
	entry["env"].(map[string]string)["LEAK"] = "${GROVE_T_DEPLOY_TOKEN}"
	root, sub := writeProject(t, map[string]any{"proj": entry})

	servers, _, warnings, err := LoadProjectFile(filepath.Join(root, ProjectFile))
	if err != nil {
		t.Fatal(err)
	}
	cfg := servers["proj"]
	if got := strings.Join(cfg.Args, " "); got != "--key= --region=eu-west-1 fallback" || cfg.Env["LEAK"] != "" {
		t.Fatalf("expanded args %q env %q", got, cfg.Env["LEAK"])
	}
	if w := strings.Join(warnings, "\n"); !strings.Contains(w, "${GROVE_T_DEPLOY_TOKEN} was not expanded") || strings.Contains(w, secret) {
		t.Fatalf("warnings: %s", w)
	}

	m := New(Options{Cwd: sub, Home: t.TempDir()})
	defer m.Close()
	rec := &recorder{decision: protocol.DecisionDenied}
	m.Tools(context.Background(), rec.env(protocol.ApprovalOnRequest, protocol.SandboxWorkspaceWrite))
	if len(rec.asked) != 1 {
		t.Fatalf("asked %d times", len(rec.asked))
	}
	asked, _ := json.Marshal(rec.asked[0])
	events, _ := json.Marshal(rec.events)
	for what, s := range map[string]string{"approval request": string(asked), "events": string(events)} {
		if strings.Contains(s, secret) {
			t.Errorf("the %s carry the secret: %s", what, s)
		}
	}
	if !strings.Contains(rec.asked[0].Command, "--key=${GROVE_T_DEPLOY_TOKEN}") {
		t.Errorf("the approval does not show the entry as written: %s", rec.asked[0].Command)
	}
}

// Red team: .mcp.json linked to grove's environment is not read.
func TestProjectFileProcLinkRefused(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, ProjectFile)
	if err := os.Symlink("/proc/self/environ", p); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := LoadProjectFile(p); err == nil || !strings.Contains(err.Error(), "/proc") || strings.Contains(err.Error(), "PATH=") {
		t.Fatalf("LoadProjectFile(-> /proc/self/environ) = %v", err)
	}
}
