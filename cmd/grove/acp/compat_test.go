package acp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// TestCompatMethods sends every method row of Compat as raw JSON-RPC:
// "not yet" must be -32601, anything else must not be.
func TestCompatMethods(t *testing.T) {
	f := &fixture{home: t.TempDir(), cwd: t.TempDir(), blocked: make(chan struct{}, 1)}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- Serve(context.Background(), inR, outW, Options{NewEngine: f.factory, Version: "test", ShutdownGrace: 20 * time.Second, Home: f.home})
		_ = outW.Close()
	}()
	sc := bufio.NewScanner(outR)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	call := func(id int, method string, params any) map[string]any {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		if _, err := fmt.Fprintf(inW, "%s\n", b); err != nil {
			t.Fatal(err)
		}
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil && m["id"] == float64(id) {
				return m
			}
		}
		t.Fatalf("no answer to %s", method)
		return nil
	}
	call(1, "initialize", map[string]any{"protocolVersion": 1})
	for i, row := range Compat {
		if row.Name == "initialize" || row.Name == "session/cancel" {
			continue // done above; a notification has no answer
		}
		params := map[string]any{"sessionId": "none", "cwd": f.cwd, "mcpServers": []any{}, "prompt": []any{}, "modeId": "never", "modelId": "m", "configId": "x", "value": "y"}
		if row.Name == "session/new" {
			params = map[string]any{"cwd": f.cwd, "mcpServers": []any{}}
		}
		m := call(i+10, row.Name, params)
		code := 0
		if e, ok := m["error"].(map[string]any); ok {
			code = int(e["code"].(float64))
		}
		if notYet := row.Status == "not yet"; notYet != (code == -32601) {
			t.Errorf("%s is %q in the compatibility table but answered %v", row.Name, row.Status, m)
		}
	}
	_ = inW.Close()
	for sc.Scan() {
	}
	if err := <-served; err != nil && !strings.Contains(err.Error(), "closed") {
		t.Errorf("Serve: %v", err)
	}
}
