package mcp

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/grovecli/grove/core/config"
	"github.com/grovecli/grove/core/testkit"
	"github.com/grovecli/grove/protocol"
)

// The reference servers from npm, started with `npx -y` the way users
// configure them. go test never installs them (tests are hermetic: no
// network, no npm install): they run only when already installed in
// GROVE_MCP_NPM_DIR (default: <user cache>/grove-test-mcp-npm), and npx
// runs offline there; otherwise the tests skip saying how to install them.
var npmPackages = []string{"@modelcontextprotocol/server-everything", "@modelcontextprotocol/server-filesystem"}

func npmDir(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("reference MCP servers from npm: skipped with -short")
	}
	for _, bin := range []string{"node", "npx"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("reference MCP servers from npm: %s not found (install Node.js to run this test)", bin)
		}
	}
	dir := os.Getenv("GROVE_MCP_NPM_DIR")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			t.Skipf("reference MCP servers from npm: no cache dir: %v", err)
		}
		dir = filepath.Join(cache, "grove-test-mcp-npm")
	}
	for _, bin := range []string{"mcp-server-filesystem", "mcp-server-everything"} {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", ".bin", bin)); err != nil {
			t.Skipf("reference MCP servers from npm: not installed in %s (go test never runs npm install; to run these tests: npm install --prefix %s %s)", dir, dir, strings.Join(npmPackages, " "))
		}
	}
	return dir
}

func npxServer(dir, pkg string, args ...string) config.MCPServer {
	long := 60.0 // the first npx start may be slow on a loaded machine
	// Offline: npx resolves the installed package and never downloads.
	return config.MCPServer{Command: "npx", Args: append([]string{"-y", pkg}, args...), Cwd: dir, StartupTimeoutSec: &long,
		Env: map[string]string{"npm_config_offline": "true"}}
}

func TestReferenceServerEverything(t *testing.T) {
	dir := npmDir(t)
	t.Setenv("OPENAI_API_KEY", "sk-must-not-leak")
	reg, m := newRegistry(t, map[string]config.MCPServer{"everything": npxServer(dir, "@modelcontextprotocol/server-everything", "stdio")})
	rec := &recorder{}
	env := rec.env(protocol.ApprovalOnRequest, protocol.SandboxWorkspaceWrite)
	var names []string
	for _, s := range reg.SpecsFor(context.Background(), env, nil) {
		names = append(names, s.Name)
	}
	for _, want := range []string{"mcp__everything__echo", "mcp__everything__get-sum", "mcp__everything__trigger-long-running-operation", "mcp__everything__get-tiny-image"} {
		if !slices.Contains(names, want) {
			t.Fatalf("tools lack %s: %v (status %+v)", want, names, m.Status())
		}
	}
	res := reg.Run(context.Background(), env, "mcp__everything__echo", rawArgs(t, map[string]string{"message": "hello grove"}))
	if res.IsError || res.Output != "Echo: hello grove" {
		t.Fatalf("echo = %+v", res)
	}
	res = reg.Run(context.Background(), env, "mcp__everything__get-sum", rawArgs(t, map[string]int{"a": 2, "b": 40}))
	if res.IsError || !strings.Contains(res.Output, "42") {
		t.Fatalf("get-sum = %+v", res)
	}
	res = reg.Run(context.Background(), env, "mcp__everything__get-tiny-image", nil)
	if res.IsError || !strings.Contains(res.Output, "[image image/png") || len(res.Images) != 1 || !strings.HasPrefix(res.Images[0], "data:image/png;base64,") {
		t.Fatalf("get-tiny-image = %+v: want the image as a model input", res)
	}
	res = reg.Run(context.Background(), env, "mcp__everything__trigger-long-running-operation", rawArgs(t, map[string]int{"duration": 1, "steps": 3}))
	if res.IsError {
		t.Fatalf("long-running = %+v", res)
	}
	if p := rec.messages(protocol.EventToolProgress); len(p) == 0 {
		t.Fatalf("no progress events from trigger-long-running-operation (output %q)", res.Output)
	}
	// Only the allow-listed environment reaches the server.
	res = reg.Run(context.Background(), env, "mcp__everything__get-env", nil)
	if res.IsError || strings.Contains(res.Output, "sk-must-not-leak") || !strings.Contains(res.Output, "PATH") {
		t.Fatalf("get-env = %+v", res)
	}
	// Interrupting a running call returns at once.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan string, 1)
	go func() {
		done <- reg.Run(ctx, env, "mcp__everything__trigger-long-running-operation", rawArgs(t, map[string]int{"duration": 60, "steps": 60})).Output
	}()
	testkit.Eventually(t, "the long operation to report progress", func() bool { return len(rec.messages(protocol.EventToolProgress)) > 3 })
	cancel()
	if out := <-done; !strings.Contains(out, "interrupted") {
		t.Fatalf("interrupted long operation = %q", out)
	}

	// npx starts node as a child: Close must leave neither behind.
	m.servers[0].mu.Lock()
	pgid := m.servers[0].conn.proc.cmd.Process.Pid
	m.servers[0].mu.Unlock()
	closeStart := time.Now()
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("Close took %s", time.Since(closeStart))
	testkit.Eventually(t, "the server's process group to be gone", func() bool { return syscall.Kill(-pgid, 0) != nil })
}

func TestReferenceServerFilesystem(t *testing.T) {
	dir := npmDir(t)
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "notes.txt"), []byte("grove was here\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	reg, _ := newRegistry(t, map[string]config.MCPServer{"fs": npxServer(dir, "@modelcontextprotocol/server-filesystem", work)})
	rec := &recorder{decision: protocol.DecisionDenied}
	env := rec.env(protocol.ApprovalOnRequest, protocol.SandboxWorkspaceWrite)
	reg.SpecsFor(context.Background(), env, nil)

	res := reg.Run(context.Background(), env, "mcp__fs__read_text_file", rawArgs(t, map[string]string{"path": filepath.Join(work, "notes.txt")}))
	if res.IsError || !strings.Contains(res.Output, "grove was here") {
		t.Fatalf("read_text_file = %+v", res)
	}
	// A 21 KB file reaches the model once, whole (the server also sends it
	// as structuredContent).
	big := strings.Repeat("line of a source file, with \"quotes\" and\ttabs\n", 470)
	if err := os.WriteFile(filepath.Join(work, "big.txt"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	res = reg.Run(context.Background(), env, "mcp__fs__read_text_file", rawArgs(t, map[string]string{"path": filepath.Join(work, "big.txt")}))
	if res.IsError || res.Output != big {
		t.Fatalf("read_text_file of %d bytes: got %d bytes, want the file once", len(big), len(res.Output))
	}
	res = reg.Run(context.Background(), env, "mcp__fs__list_directory", rawArgs(t, map[string]string{"path": work}))
	if res.IsError || !strings.Contains(res.Output, "notes.txt") {
		t.Fatalf("list_directory = %+v", res)
	}
	// Outside the allowed directory the server answers isError: an error for the model.
	res = reg.Run(context.Background(), env, "mcp__fs__read_text_file", rawArgs(t, map[string]string{"path": "/etc/hostname"}))
	if !res.IsError {
		t.Fatalf("reading outside the allowed dir = %+v", res)
	}
	// write_file is destructive: on-request asks, and the denial stops it.
	target := filepath.Join(work, "new.txt")
	res = reg.Run(context.Background(), env, "mcp__fs__write_file", rawArgs(t, map[string]string{"path": target, "content": "x"}))
	if !res.IsError || len(rec.asked) != 1 || !strings.Contains(rec.asked[0].Reason, "destructive") {
		t.Fatalf("write_file = %+v, asked %+v", res, rec.asked)
	}
	if _, err := os.Stat(target); err == nil {
		t.Fatal("a denied write_file wrote the file")
	}
	// A read-only agent does not see it at all.
	var ro []string
	for _, s := range reg.SpecsFor(context.Background(), rec.env(protocol.ApprovalOnRequest, protocol.SandboxReadOnly), nil) {
		ro = append(ro, s.Name)
	}
	if slices.Contains(ro, "mcp__fs__write_file") || !slices.Contains(ro, "mcp__fs__read_text_file") {
		t.Fatalf("read-only agent's tools: %v", ro)
	}
}
