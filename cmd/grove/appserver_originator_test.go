package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"testing"

	"github.com/grovecli/grove/core/model/modeltest"
)

// TestAppServerModelRequestsCarryOriginator: `grove app-server`'s model
// requests name the client (initialize's clientInfo.name) in the
// originator header, as Codex's do (codex-rs/app-server/tests/suite/v2/
// initialize.rs initialize_uses_client_info_name_as_originator: the
// userAgent it checks is built from the same originator). The messages'
// shapes are the appserver package's conformance tests' business.
func TestAppServerModelRequestsCarryOriginator(t *testing.T) {
	noProviderEnv(t)
	t.Setenv("CODEX_INTERNAL_ORIGINATOR_OVERRIDE", "")
	srv := modeltest.NewServer(t)
	srv.Handle(func(modeltest.CapturedRequest) modeltest.Reply { return modeltest.Reply{Text: "Done"} })
	t.Setenv("OPENAI_BASE_URL", srv.URL())
	t.Setenv("OPENAI_API_KEY", "dummy")
	home, cwd := t.TempDir(), t.TempDir()
	t.Setenv("GROVE_HOME", home)
	t.Setenv("CODEX_HOME", filepath.Join(home, "no-codex-home"))
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	cmd := newRootCmd()
	cmd.SetIn(inR)
	cmd.SetOut(outW)
	cmd.SetErr(io.Discard)
	cmd.SetArgs([]string{"app-server"})
	done := make(chan error, 1)
	go func() {
		done <- cmd.ExecuteContext(context.Background())
		_ = outW.Close()
	}()
	lines := bufio.NewScanner(outR)
	lines.Buffer(make([]byte, 1<<20), 16<<20)
	send := func(s string) {
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	// until reads messages until one matches.
	until := func(match func(map[string]any) bool) map[string]any {
		for lines.Scan() {
			var m map[string]any
			if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
				t.Fatalf("not JSON: %s", lines.Bytes())
			}
			if match(m) {
				return m
			}
		}
		t.Fatal("app-server closed its output")
		return nil
	}
	answer := func(id float64) func(map[string]any) bool {
		return func(m map[string]any) bool { return m["id"] == id && m["method"] == nil }
	}
	send(`{"id":1,"method":"initialize","params":{"clientInfo":{"name":"codex_vscode","title":"Codex VS Code Extension","version":"0.1.0"}}}`)
	until(answer(1))
	send(`{"method":"initialized"}`)
	send(`{"id":2,"method":"thread/start","params":{"cwd":` + quote(cwd) + `}}`)
	start := until(answer(2))
	id, _ := start["result"].(map[string]any)["thread"].(map[string]any)["id"].(string)
	send(`{"id":3,"method":"turn/start","params":{"threadId":` + quote(id) + `,"input":[{"type":"text","text":"hello"}]}}`)
	until(func(m map[string]any) bool { return m["method"] == "turn/completed" })
	_ = inW.Close()
	go func() {
		for lines.Scan() {
		}
	}()
	if err := <-done; err != nil {
		t.Fatalf("app-server: %v", err)
	}
	reqs := srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("no model request")
	}
	for _, r := range reqs {
		if got := r.Header.Get("originator"); got != "codex_vscode" {
			t.Fatalf("%s %s: originator %q, want the client's name", r.Method, r.Path, got)
		}
	}
}
