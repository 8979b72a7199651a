package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/model/modeltest"
)

// appServerProc is `grove app-server` run through the real command, its
// stdio piped to the test.
type appServerProc struct {
	t     *testing.T
	in    *io.PipeWriter
	lines *bufio.Scanner
	done  chan error
	next  int
}

func startAppServer(t *testing.T) *appServerProc {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	cmd := newRootCmd()
	cmd.SetIn(inR)
	cmd.SetOut(outW)
	cmd.SetErr(io.Discard)
	cmd.SetArgs([]string{"app-server"})
	p := &appServerProc{t: t, in: inW, lines: bufio.NewScanner(outR), done: make(chan error, 1)}
	p.lines.Buffer(make([]byte, 1<<20), 16<<20)
	go func() {
		p.done <- cmd.ExecuteContext(context.Background())
		_ = outW.Close()
	}()
	return p
}

// call sends a request and returns its answer (result or error).
func (p *appServerProc) call(method string, params any) map[string]any {
	p.t.Helper()
	p.next++
	id := p.next
	b, err := json.Marshal(map[string]any{"id": id, "method": method, "params": params})
	if err != nil {
		p.t.Fatal(err)
	}
	p.send(string(b))
	return p.until(func(m map[string]any) bool { return m["id"] == float64(id) && m["method"] == nil })
}

// result is call's result; an error answer fails the test.
func (p *appServerProc) result(method string, params any) map[string]any {
	p.t.Helper()
	m := p.call(method, params)
	r, ok := m["result"].(map[string]any)
	if !ok {
		p.t.Fatalf("%s: %v", method, m)
	}
	return r
}

func (p *appServerProc) send(s string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, s+"\n"); err != nil {
		p.t.Fatal(err)
	}
}

// until reads messages until one matches.
func (p *appServerProc) until(match func(map[string]any) bool) map[string]any {
	p.t.Helper()
	for p.lines.Scan() {
		var m map[string]any
		if err := json.Unmarshal(p.lines.Bytes(), &m); err != nil {
			p.t.Fatalf("not JSON: %s", p.lines.Bytes())
		}
		if match(m) {
			return m
		}
	}
	p.t.Fatal("app-server closed its output")
	return nil
}

// turn runs one turn on a thread to its end.
func (p *appServerProc) turn(thread, text string) {
	p.t.Helper()
	p.result("turn/start", map[string]any{"threadId": thread, "input": []any{map[string]any{"type": "text", "text": text}}})
	p.until(func(m map[string]any) bool {
		params, _ := m["params"].(map[string]any)
		return m["method"] == "turn/completed" && params["threadId"] == thread
	})
}

func (p *appServerProc) close() {
	p.t.Helper()
	_ = p.in.Close()
	go func() {
		for p.lines.Scan() {
		}
	}()
	if err := <-p.done; err != nil {
		p.t.Fatalf("app-server: %v", err)
	}
}

// modelIDs lists model/list's ids.
func (p *appServerProc) modelIDs() []string {
	p.t.Helper()
	var ids []string
	for _, e := range p.result("model/list", map[string]any{})["data"].([]any) {
		ids = append(ids, e.(map[string]any)["id"].(string))
	}
	return ids
}

// asked lists the models a server's model requests named, by prompt.
func asked(srv *modeltest.Server) map[string]string {
	out := map[string]string{}
	for _, r := range srv.Requests() {
		if r.Method != "POST" {
			continue
		}
		b, _ := json.Marshal(r.Body["input"])
		for _, prompt := range []string{"before", "loaded", "after"} {
			if strings.Contains(string(b), "prompt "+prompt) {
				out[prompt], _ = r.Body["model"].(string)
			}
		}
	}
	return out
}

// After config/batchWrite sets a new model and a new provider, `grove
// app-server` (the real command, its real reload) starts threads on them
// and model/list asks the new provider; a thread loaded before keeps its
// model and provider (Codex: app-server/tests/suite/v2/config_rpc.rs
// config_batch_write_applies_multiple_edits for the write;
// thread_start.rs / config_batch_write_reload_skips_workflow_managed_thread
// for the loaded thread keeping its settings). A write whose result a
// thread could not start with (a provider without base_url) is refused
// with Codex's configValidationError "Invalid configuration: …"
// (core/src/config/service.rs validates the edited config before it
// persists it) and leaves the file and the server as they were.
func TestAppServerConfigWriteSwitchesProvider(t *testing.T) {
	noProviderEnv(t)
	first, second := modeltest.NewServer(t), modeltest.NewServer(t)
	first.SetModels([]string{"first-listed"})
	second.SetModels([]string{"second-listed"})
	for _, s := range []*modeltest.Server{first, second} {
		s.Handle(func(modeltest.CapturedRequest) modeltest.Reply { return modeltest.Reply{Text: "Done"} })
	}
	t.Setenv("OPENAI_BASE_URL", first.URL())
	t.Setenv("OPENAI_API_KEY", "dummy")
	home, cwd := t.TempDir(), t.TempDir()
	t.Setenv("GROVE_HOME", home)
	t.Setenv("CODEX_HOME", filepath.Join(home, "no-codex-home"))
	file := filepath.Join(home, "config.toml")
	const original = "model = \"old-model\"\n"
	if err := os.WriteFile(file, []byte(original), 0o600); err != nil {
		t.Fatal(err)
	}
	p := startAppServer(t)
	p.result("initialize", map[string]any{"clientInfo": map[string]any{"name": "test", "version": "0"}})
	p.send(`{"method":"initialized"}`)
	startThread := func() string {
		r := p.result("thread/start", map[string]any{"cwd": cwd})
		return r["thread"].(map[string]any)["id"].(string)
	}
	loaded := startThread()
	p.turn(loaded, "prompt before")
	if ids := p.modelIDs(); !slices.Contains(ids, "first-listed") {
		t.Fatalf("model/list before the write: %v", ids)
	}

	bad := p.call("config/batchWrite", map[string]any{"edits": []any{
		map[string]any{"keyPath": "model_providers.broken", "value": map[string]any{"wire_api": "responses"}, "mergeStrategy": "replace"},
		map[string]any{"keyPath": "model_provider", "value": "broken", "mergeStrategy": "replace"},
	}})
	e, _ := bad["error"].(map[string]any)
	data, _ := e["data"].(map[string]any)
	msg, _ := e["message"].(string)
	if data["config_write_error_code"] != "configValidationError" || !strings.HasPrefix(msg, "Invalid configuration: ") {
		t.Fatalf("write of a provider without base_url: %v", bad)
	}
	if b, _ := os.ReadFile(file); string(b) != original {
		t.Fatalf("refused write changed the file: %q", b)
	}

	p.result("config/batchWrite", map[string]any{"reloadUserConfig": true, "edits": []any{
		map[string]any{"keyPath": "model", "value": "new-model", "mergeStrategy": "replace"},
		map[string]any{"keyPath": "model_providers.second", "value": map[string]any{"name": "Second", "base_url": second.URL(), "wire_api": "responses"}, "mergeStrategy": "replace"},
		map[string]any{"keyPath": "model_provider", "value": "second", "mergeStrategy": "replace"},
	}})
	firstLists := first.ModelsRequests()
	if ids := p.modelIDs(); !slices.Contains(ids, "second-listed") || slices.Contains(ids, "first-listed") || ids[0] != "new-model" {
		t.Fatalf("model/list after the write: %v", ids)
	}
	if first.ModelsRequests() != firstLists || second.ModelsRequests() == 0 {
		t.Fatalf("model/list asked the first provider %d times more, the second %d times", first.ModelsRequests()-firstLists, second.ModelsRequests())
	}
	p.turn(startThread(), "prompt after")
	p.turn(loaded, "prompt loaded")
	p.close()

	if got := asked(second); got["after"] != "new-model" || got["loaded"] != "" {
		t.Fatalf("second provider's requests: %v", got)
	}
	if got := asked(first); got["before"] != "old-model" || got["loaded"] != "old-model" || got["after"] != "" {
		t.Fatalf("first provider's requests: %v", got)
	}
}
