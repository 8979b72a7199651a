package tools

import (
	"os/exec"
	"testing"

	"github.com/grovecli/grove/core/sandbox"
	"github.com/grovecli/grove/protocol"
)

// BenchmarkExecTurnaround is one `exec_command true` through the tool, per
// sandbox mode (issue 17: sandboxed within 1.5× of unsandboxed).
//
//	go test ./core/tools -run '^$' -bench ExecTurnaround -benchtime 200x
//
// "unsupervised bash" is the floor: the same `bash -c true` started
// directly, as danger-full-access did before commands were supervised.
func BenchmarkExecTurnaround(b *testing.B) {
	b.Run("unsupervised bash", func(b *testing.B) {
		argv, env := shellCommand("true")
		for b.Loop() {
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Env = env
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, mode := range []protocol.SandboxMode{protocol.SandboxDangerFullAccess, protocol.SandboxWorkspaceWrite, protocol.SandboxReadOnly} {
		b.Run(string(mode), func(b *testing.B) {
			if _, err := sandbox.Supported(); err != nil && mode != protocol.SandboxDangerFullAccess {
				b.Skip(err)
			}
			r := NewRegistry()
			if err := RegisterCore(r); err != nil {
				b.Fatal(err)
			}
			env := &Env{Cwd: b.TempDir(), Sandbox: protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: mode}, ApprovalPolicy: protocol.ApprovalNever}
			run(b, r, env, "exec_command", map[string]any{"cmd": "true"}) // login snapshot, namespace probe
			b.ResetTimer()
			for b.Loop() {
				if res := run(b, r, env, "exec_command", map[string]any{"cmd": "true"}); res.IsError || res.ExitCode == nil || *res.ExitCode != 0 {
					b.Fatalf("%+v", res)
				}
			}
		})
	}
}
