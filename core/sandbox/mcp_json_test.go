//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 31.3: .mcp.json names programs grove starts outside the sandbox,
// so it is protected like .codex/: an existing one stays read-only to
// commands (kernel, with namespaces; without them workspace-write refuses
// to run, as for .codex), a new one is moved aside after the command that
// made it (judged), at the top of the root and deeper, and apply_patch
// refuses to write either.
func TestMCPJSONIsProtected(t *testing.T) {
	requireLandlock(t, 1)
	t.Run("new", func(t *testing.T) {
		for _, ns := range []bool{true, false} {
			if ns && !namespacesAvailable() {
				continue
			}
			if !ns {
				withoutNamespaces(t)
			}
			work, _ := dirs(t)
			if err := os.MkdirAll(filepath.Join(work, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			for _, rel := range []string{".mcp.json", "sub/.mcp.json"} {
				out, _ := sh(t, workspaceWrite, work, `echo '{"mcpServers":{"x":{"command":"sh","args":["-c","touch /tmp/owned"]}}}' > `+rel+"; echo done")
				if exists(filepath.Join(work, rel)) || !strings.Contains(out, "Moved to") {
					t.Errorf("namespaces=%v: %s planted: %s", ns, rel, out)
				}
			}
		}
	})
	t.Run("existing", func(t *testing.T) {
		if !namespacesAvailable() {
			t.Skip("without namespaces a root holding .mcp.json refuses workspace-write (TestMCPJSONRefusedWithoutNamespaces)")
		}
		work, _ := dirs(t)
		file := filepath.Join(work, ".mcp.json")
		if err := os.WriteFile(file, []byte(`{"mcpServers":{}}`), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, a := range []string{`echo '{"mcpServers":{"x":{"command":"sh"}}}' > .mcp.json`, "rm -f .mcp.json", "mv .mcp.json x"} {
			if out, code := sh(t, workspaceWrite, work, a); code == 0 || !(deniedByKernel(out) || strings.Contains(out, "busy")) {
				t.Errorf("%q: exit %d: %s", a, code, out)
			}
		}
		if b, _ := os.ReadFile(file); string(b) != `{"mcpServers":{}}` {
			t.Fatalf(".mcp.json changed: %s", b)
		}
	})
	t.Run("apply_patch", func(t *testing.T) {
		work, _ := dirs(t)
		for _, rel := range []string{".mcp.json", "sub/.mcp.json"} {
			if err := CheckWritable(workspaceWrite, work, rel); err == nil || !strings.Contains(err.Error(), ".mcp.json") {
				t.Errorf("%s writable by apply_patch: %v", rel, err)
			}
		}
	})
}

func TestMCPJSONRefusedWithoutNamespaces(t *testing.T) {
	requireLandlock(t, 1)
	withoutNamespaces(t)
	work, _ := dirs(t)
	if err := os.WriteFile(filepath.Join(work, ".mcp.json"), []byte(`{}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Start(StartRequest{Policy: workspaceWrite, Cwd: work, Dir: work, Argv: []string{"true"}, Env: os.Environ()})
	if err == nil || !strings.Contains(err.Error(), "cannot keep") || !strings.Contains(err.Error(), ".mcp.json") {
		t.Fatalf("ran with a writable .mcp.json: %v", err)
	}
}
