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

// fakeNPX is an npx stand-in (no npm in go test): like `npx -y PKG`, a
// package installed in node_modules of the working directory or a parent
// wins over the one it would fetch ($GROVE_T_REAL, the test server).
const fakeNPX = `#!/bin/sh
for a; do pkg=$a; done
d=$(pwd -P)
while :; do
  if [ -x "$d/node_modules/.bin/$pkg" ]; then exec "$d/node_modules/.bin/$pkg"; fi
  [ "$d" = / ] && break
  d=$(dirname "$d")
done
exec "$GROVE_T_REAL"
`

// npxWorld is a workspace with a planted node_modules package, an npx on
// PATH outside it, and TMPDIR moved so the test's own files are not all in
// the temp root.
func npxWorld(t *testing.T) (ws, home, marker string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, home, bin, tmp := filepath.Join(base, "ws"), filepath.Join(base, "home"), filepath.Join(base, "bin"), filepath.Join(base, "tmp")
	for _, d := range []string{filepath.Join(ws, "node_modules", ".bin"), home, bin, tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("TMPDIR", tmp)
	// The fixture lives under /tmp, a temp root of every workspace-write
	// sandbox unless excluded: only this test's TMPDIR counts here.
	old := modelTempDirs
	modelTempDirs = func() []string { return []string{tmp} }
	t.Cleanup(func() { modelTempDirs = old })
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	if err := os.WriteFile(filepath.Join(bin, "npx"), []byte(fakeNPX), 0o755); err != nil {
		t.Fatal(err)
	}
	marker = filepath.Join(base, "PWNED")
	planted := "#!/bin/sh\ntouch " + marker + "\nexec \"$GROVE_T_REAL\"\n"
	if err := os.WriteFile(filepath.Join(ws, "node_modules", ".bin", "fake-mcp"), []byte(planted), 0o755); err != nil {
		t.Fatal(err)
	}
	return ws, home, marker
}

func npxEntry() config.MCPServer {
	return config.MCPServer{Command: "npx", Args: []string{"-y", "fake-mcp"},
		Env: map[string]string{"GROVE_MCP_TEST_SERVER": "serve", "GROVE_T_REAL": os.Args[0]}}
}

// Issue 31.1: a user-level server configured as the docs show
// (`npx -y pkg`) must not run the package the model planted in the
// workspace's node_modules: it starts outside the workspace.
func TestUserServerDoesNotResolveFromWorkspace(t *testing.T) {
	ws, home, marker := npxWorld(t)
	m := New(Options{Servers: map[string]config.MCPServer{"fs": npxEntry()}, Cwd: ws, Home: home, Roots: []string{ws}})
	defer m.Close()
	rec := &recorder{}
	got := specNames(m.Tools(context.Background(), rec.env(protocol.ApprovalOnRequest, protocol.SandboxWorkspaceWrite)))
	if !slices.Contains(got, "mcp__fs__echo") {
		t.Fatalf("server not started: %v %v", got, rec.messages(protocol.EventWarning))
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the planted node_modules package ran")
	}
}

// The same for an approved project server (`npx -y @acme/mcp-server` in
// .mcp.json): the approval covers the entry, not a package the model edits
// in node_modules afterwards, so that package is never resolved.
func TestProjectServerDoesNotResolveFromWorkspace(t *testing.T) {
	ws, home, marker := npxWorld(t)
	if err := os.Mkdir(filepath.Join(ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	e := npxEntry()
	b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"proj": map[string]any{"command": e.Command, "args": e.Args, "env": e.Env}}})
	if err := os.WriteFile(filepath.Join(ws, ProjectFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	m := New(Options{Cwd: ws, Home: home, Roots: []string{ws}})
	defer m.Close()
	rec := &recorder{decision: protocol.DecisionApprovedForSession}
	got := specNames(m.Tools(context.Background(), rec.env(protocol.ApprovalOnRequest, protocol.SandboxWorkspaceWrite)))
	if !slices.Contains(got, "mcp__proj__echo") {
		t.Fatalf("server not started: %v %v", got, rec.messages(protocol.EventWarning))
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the planted node_modules package ran")
	}
}

// A command PATH resolves into the workspace (an npx the model dropped in
// a workspace bin directory on PATH) is refused, naming where it resolved.
func TestServerCommandOnPATHInWorkspaceRefused(t *testing.T) {
	ws, home, marker := npxWorld(t)
	wsBin := filepath.Join(ws, "bin")
	if err := os.Mkdir(wsBin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wsBin, "npx"), []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", wsBin+string(os.PathListSeparator)+os.Getenv("PATH"))
	m := New(Options{Servers: map[string]config.MCPServer{"fs": npxEntry()}, Cwd: ws, Home: home, Roots: []string{ws}})
	defer m.Close()
	rec := &recorder{}
	if got := m.Tools(context.Background(), rec.env(protocol.ApprovalOnRequest, protocol.SandboxWorkspaceWrite)); len(got) != 0 {
		t.Fatalf("started: %v", specNames(got))
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the workspace's npx ran")
	}
	if w := strings.Join(rec.messages(protocol.EventWarning), "\n"); !strings.Contains(w, filepath.Join(wsBin, "npx")) || !strings.Contains(w, "inside the workspace") {
		t.Fatalf("warnings: %s", w)
	}
}

// Relative paths keep meaning the project: "." and ./x against grove's cwd
// (or the project root), a project server's `node server.js` too.
func TestLaunchPathsAbsolute(t *testing.T) {
	base := t.TempDir()
	if err := os.WriteFile(filepath.Join(base, "server.js"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		in      string
		project bool
		want    string
	}{
		{".", false, base},
		{"./data", false, filepath.Join(base, "data")},
		{"--root=./data", false, "--root=" + filepath.Join(base, "data")},
		{"server.js", true, filepath.Join(base, "server.js")},
		{"server.js", false, "server.js"},
		{"-y", true, "-y"},
		{"@acme/mcp", true, "@acme/mcp"},
		{"/abs", true, "/abs"},
	} {
		if got := absolutePath(c.in, base, c.project); got != c.want {
			t.Errorf("absolutePath(%q, project=%v) = %q, want %q", c.in, c.project, got, c.want)
		}
	}
}
