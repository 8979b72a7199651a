package tools

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/sandbox"
	"github.com/grovecli/grove/protocol"
)

// exec_command under workspace-write with exclude_slash_tmp (TMPDIR unset,
// as on most Linux systems): the command is not told TMPDIR=/tmp, and a
// write to /tmp is refused by the kernel, also through a link the model
// made in the workspace; by default both work.
func TestExecSlashTmpExcluded(t *testing.T) {
	if _, err := sandbox.Supported(); err != nil {
		t.Skip(err)
	}
	t.Setenv("TMPDIR", "")
	r := coreRegistry(t)
	target := t.TempDir() // under /tmp
	env := testEnv(t)
	env.Sandbox = protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite, ExcludeSlashTmp: true}
	res := run(t, r, env, "exec_command", map[string]any{"cmd": `echo "tmpdir=[$TMPDIR]"; ln -s ` + target + ` link; echo x > link/f; echo x > ` + filepath.Join(target, "g")})
	if !strings.Contains(res.Output, "tmpdir=[]") || read(t, target, "f") != "<missing>" || read(t, target, "g") != "<missing>" || !res.SandboxDenied {
		t.Fatalf("exclude_slash_tmp: %+v", res)
	}
	env = testEnv(t)
	env.Sandbox = protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite}
	res = run(t, r, env, "exec_command", map[string]any{"cmd": `echo "tmpdir=[$TMPDIR]"; echo x > ` + filepath.Join(target, "h")})
	if !strings.Contains(res.Output, "tmpdir=[/tmp]") || read(t, target, "h") != "x\n" {
		t.Fatalf("default: %+v", res)
	}
}
