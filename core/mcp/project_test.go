package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/config"
	"github.com/grovecli/grove/protocol"
)

// writeProject makes a git project whose .mcp.json names the test server.
func writeProject(t *testing.T, servers map[string]any) (root, sub string) {
	t.Helper()
	root = t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(map[string]any{"mcpServers": servers})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ProjectFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	sub = filepath.Join(root, "pkg", "deep")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	return root, sub
}

func projectEntry(mode string) map[string]any {
	return map[string]any{"command": os.Args[0], "env": map[string]string{"GROVE_MCP_TEST_SERVER": mode}}
}

func TestProjectServerNeedsApprovalOnceThenRemembered(t *testing.T) {
	_, sub := writeProject(t, map[string]any{"proj": projectEntry("serve")})
	home := t.TempDir()
	env := func(rec *recorder) []string {
		m := New(Options{Cwd: sub, Home: home})
		defer m.Close()
		return specNames(m.Tools(context.Background(), rec.env(protocol.ApprovalOnRequest, protocol.SandboxWorkspaceWrite)))
	}

	denied := &recorder{decision: protocol.DecisionDenied}
	if got := env(denied); len(got) != 0 {
		t.Fatalf("a declined project server offers %v", got)
	}
	if len(denied.asked) != 1 || !strings.Contains(denied.asked[0].Command, os.Args[0]) || !strings.Contains(denied.asked[0].Reason, ProjectFile) {
		t.Fatalf("approval request = %+v", denied.asked)
	}
	if w := strings.Join(denied.messages(protocol.EventWarning), "\n"); !strings.Contains(w, "you declined it") {
		t.Fatalf("warnings: %s", w)
	}

	session := &recorder{decision: protocol.DecisionApprovedForSession}
	if got := env(session); !slices.Contains(got, "mcp__proj__echo") {
		t.Fatalf("approved-for-session server offers %v", got)
	}
	// Approve for session is not remembered: a new grove asks again.
	approve := &recorder{decision: protocol.DecisionApproved}
	if got := env(approve); !slices.Contains(got, "mcp__proj__echo") || len(approve.asked) != 1 {
		t.Fatalf("approved server: tools %v, asked %d", got, len(approve.asked))
	}
	// Approve is remembered for the project: no question next time.
	again := &recorder{decision: protocol.DecisionDenied}
	if got := env(again); !slices.Contains(got, "mcp__proj__echo") || len(again.asked) != 0 {
		t.Fatalf("remembered server: tools %v, asked %d", got, len(again.asked))
	}

	// A changed entry asks again.
	root := filepath.Dir(filepath.Dir(sub))
	changed := projectEntry("serve")
	changed["args"] = []string{"--changed"}
	b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"proj": changed}})
	if err := os.WriteFile(filepath.Join(root, ProjectFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	changedRec := &recorder{decision: protocol.DecisionDenied}
	if got := env(changedRec); len(got) != 0 || len(changedRec.asked) != 1 {
		t.Fatalf("changed server: tools %v, asked %d", got, len(changedRec.asked))
	}
}

func TestProjectServerWithoutAnyoneToAsk(t *testing.T) {
	_, sub := writeProject(t, map[string]any{"proj": projectEntry("serve")})
	m := New(Options{Cwd: sub, Home: t.TempDir()})
	defer m.Close()
	rec := &recorder{}
	env := rec.env(protocol.ApprovalNever, protocol.SandboxWorkspaceWrite)
	if got := m.Tools(context.Background(), env); len(got) != 0 {
		t.Fatalf("unapproved project server offers %v", specNames(got))
	}
	if len(rec.asked) != 0 {
		t.Fatal("approval_policy never must not ask")
	}
	if w := strings.Join(rec.messages(protocol.EventWarning), "\n"); !strings.Contains(w, "no one can approve here") {
		t.Fatalf("warnings: %s", w)
	}
	if st := m.Status()[0]; st.State != StateDenied || st.Source == "" {
		t.Fatalf("status = %+v", st)
	}
}

func TestProjectFileParsing(t *testing.T) {
	t.Setenv("GROVE_TEST_MCP_DIR", "/srv/data")
	root, sub := writeProject(t, map[string]any{
		"fs":     map[string]any{"command": "npx", "args": []string{"-y", "server-filesystem", "${GROVE_TEST_MCP_DIR}", "${GROVE_TEST_UNSET:-/fallback}"}},
		"remote": map[string]any{"type": "http", "url": "https://example.com/mcp", "headers": map[string]string{"Authorization": "Bearer ${GROVE_TEST_MCP_DIR}"}},
		"old":    map[string]any{"type": "sse", "url": "https://example.com/sse"},
		"broken": map[string]any{"command": 5},
		"empty":  map[string]any{},
	})
	path := FindProjectFile(sub)
	if path != filepath.Join(root, ProjectFile) {
		t.Fatalf("FindProjectFile(%s) = %q", sub, path)
	}
	servers, origins, warns, err := LoadProjectFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if fs := servers["fs"]; !slices.Equal(fs.Args, []string{"-y", "server-filesystem", "/srv/data", "/fallback"}) {
		t.Fatalf("fs args = %v", fs.Args)
	}
	if r := servers["remote"]; r.URL != "https://example.com/mcp" || r.HTTPHeaders["Authorization"] != "Bearer /srv/data" {
		t.Fatalf("remote = %+v", r)
	}
	if origins["fs"].root != root || origins["fs"].fingerprint == "" {
		t.Fatalf("origin = %+v", origins["fs"])
	}
	w := strings.Join(warns, "\n")
	for _, want := range []string{"mcpServers.old: the legacy SSE transport", "mcpServers.broken", "empty: set command"} {
		if !strings.Contains(w, want) {
			t.Errorf("warnings lack %q:\n%s", want, w)
		}
	}
	if len(servers) != 2 {
		t.Fatalf("servers = %v", servers)
	}
	// The search stops at the project root (.git): a file above it is not read.
	outer := t.TempDir()
	inner := filepath.Join(outer, "repo")
	_ = os.MkdirAll(filepath.Join(inner, ".git"), 0o755)
	_ = os.WriteFile(filepath.Join(outer, ProjectFile), []byte(`{"mcpServers":{}}`), 0o644)
	if got := FindProjectFile(inner); got != "" {
		t.Fatalf("found %s above the project root", got)
	}
}

func TestConfigServerWinsOverProjectServer(t *testing.T) {
	_, sub := writeProject(t, map[string]any{"same": projectEntry("serve")})
	var warned []string
	m := New(Options{Cwd: sub, Home: t.TempDir(), Servers: map[string]config.MCPServer{"same": stdioServer("serve")},
		OnWarning: func(s string) { warned = append(warned, s) }})
	defer m.Close()
	if st := m.Status(); len(st) != 1 || st[0].Source != "" {
		t.Fatalf("status = %+v", st)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "using config.toml's") {
		t.Fatalf("warnings = %v", warned)
	}
}
