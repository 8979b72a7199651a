package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// TestAppServerCommand runs `grove app-server` in-process on scripted
// stdin: every request is answered, a thread starts in the given cwd, and
// EOF ends the command cleanly.
func TestAppServerCommand(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	in := strings.Join([]string{
		`{"id":1,"method":"initialize","params":{"clientInfo":{"name":"t","version":"1"}}}`,
		`{"method":"initialized"}`,
		`{"id":2,"method":"thread/start","params":{"cwd":` + quote(cwd) + `,"approvalPolicy":"never"}}`,
		`{"id":3,"method":"thread/list","params":{}}`,
		`{"id":4,"method":"nope"}`,
	}, "\n") + "\n"
	out, stderr, err := runCLI(t, home, in, "--demo", "app-server")
	if err != nil {
		t.Fatalf("app-server: %v\n%s", err, stderr)
	}
	answers := map[float64]map[string]any{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("stdout line is not JSON: %q", line)
		}
		if id, ok := m["id"].(float64); ok {
			answers[id] = m
		}
	}
	start, _ := answers[2]["result"].(map[string]any)
	if start == nil || start["cwd"] != cwd || start["approvalPolicy"] != "never" {
		t.Fatalf("thread/start: %v", answers[2])
	}
	// A thread with no message yet has no rollout and is not listed
	// (Codex: thread_archive.rs thread_archive_requires_materialized_rollout).
	list, _ := answers[3]["result"].(map[string]any)
	if data, ok := list["data"].([]any); !ok || len(data) != 0 {
		t.Fatalf("thread/list: %v", answers[3])
	}
	if e, _ := answers[4]["error"].(map[string]any); e == nil || e["code"] != float64(-32601) {
		t.Fatalf("unknown method: %v", answers[4])
	}
	if _, _, err := runCLI(t, home, "", "app-server", "--listen", "tcp://127.0.0.1:1"); err == nil || !strings.Contains(err.Error(), "stdio://") {
		t.Fatalf("--listen tcp:// must be refused, got %v", err)
	}
}

// TestACPCommand runs `grove acp` in-process: initialize and session/new
// over a pipe, then EOF ends it.
func TestACPCommand(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	t.Setenv("GROVE_HOME", home)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	cmd := newRootCmd()
	cmd.SetIn(inR)
	cmd.SetOut(outW)
	cmd.SetErr(io.Discard)
	cmd.SetArgs([]string{"--demo", "acp"})
	done := make(chan error, 1)
	go func() {
		done <- cmd.ExecuteContext(context.Background())
		_ = outW.Close()
	}()
	lines := bufio.NewScanner(outR)
	send := func(s string) {
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	read := func() map[string]any {
		if !lines.Scan() {
			t.Fatal("acp closed its output")
		}
		var m map[string]any
		if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
			t.Fatalf("not JSON: %s", lines.Bytes())
		}
		return m
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	if r, _ := read()["result"].(map[string]any); r == nil || r["protocolVersion"] != float64(1) {
		t.Fatalf("initialize: %v", r)
	}
	send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":` + quote(cwd) + `,"mcpServers":[]}}`)
	if r, _ := read()["result"].(map[string]any); r == nil || r["sessionId"] == "" {
		t.Fatalf("session/new: %v", r)
	}
	_ = inW.Close()
	go func() {
		for lines.Scan() {
		}
	}()
	if err := <-done; err != nil {
		t.Fatalf("acp: %v", err)
	}
}
