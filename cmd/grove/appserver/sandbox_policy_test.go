package appserver

import (
	"encoding/json"
	"testing"

	"github.com/grovecli/grove/protocol"
)

// Codex's WorkspaceWriteSandboxPolicy carries excludeTmpdirEnvVar and
// excludeSlashTmp (testdata/codex-0.169.0/v2/ThreadStartResponse.json):
// a turn/start override sets them, and the thread reports them back.
func TestWorkspaceWriteTempKeysRoundTrip(t *testing.T) {
	raw := json.RawMessage(`{"type":"workspaceWrite","writableRoots":["/w"],"networkAccess":false,"excludeTmpdirEnvVar":true,"excludeSlashTmp":true}`)
	p, rerr := sandboxOverride(raw)
	if rerr != nil {
		t.Fatal(rerr)
	}
	if p.Mode != protocol.SandboxWorkspaceWrite || !p.ExcludeSlashTmp || !p.ExcludeTmpdirEnvVar {
		t.Fatalf("override: %+v", p)
	}
	got := codexSandbox(*p)
	if got.ExcludeSlashTmp == nil || !*got.ExcludeSlashTmp || got.ExcludeTmpdirEnvVar == nil || !*got.ExcludeTmpdirEnvVar {
		t.Fatalf("reported: %+v", got)
	}
	def := codexSandbox(protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite})
	if def.ExcludeSlashTmp == nil || *def.ExcludeSlashTmp || def.ExcludeTmpdirEnvVar == nil || *def.ExcludeTmpdirEnvVar {
		t.Fatalf("defaults reported: %+v", def)
	}
}
