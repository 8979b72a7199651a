package tools

import (
	"fmt"
	"github.com/grovecli/grove/protocol"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkClaudeGrepTree: Grep files_with_matches over 1000 files of 200
// lines each (Go's RE2, sequential reads through the backend).
func BenchmarkClaudeGrepTree(b *testing.B) {
	r := claudeRegistry(b)
	dir := b.TempDir()
	body := strings.Repeat("some ordinary line of code here\n", 199) + "needle\n"
	for i := range 1000 {
		write(b, dir, fmt.Sprintf("d%d/f%d.go", i%20, i), body)
	}
	env := &Env{ThreadID: "b", Cwd: dir}
	b.ResetTimer()
	for b.Loop() {
		if res := run(b, r, env, "Grep", map[string]any{"pattern": "needle", "type": "go"}); !strings.HasPrefix(res.Output, "Found 1000 files") {
			b.Fatal(res.Output[:min(100, len(res.Output))])
		}
	}
}

// BenchmarkClaudeReadAndEdit: Read a 2000-line file, then Edit one line
// (the guarded whole-file write through the patch pipeline).
func BenchmarkClaudeReadAndEdit(b *testing.B) {
	r := claudeRegistry(b)
	dir := b.TempDir()
	var sb strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&sb, "line %d of the file\n", i)
	}
	write(b, dir, "big.txt", sb.String())
	p := filepath.Join(dir, "big.txt")
	env := &Env{ThreadID: "b", Cwd: dir, Sandbox: protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxDangerFullAccess}}
	n := 0
	b.ResetTimer()
	for b.Loop() {
		run(b, r, env, "Read", map[string]any{"file_path": p})
		old, new := fmt.Sprintf("line 1000 of the file v%d", n), fmt.Sprintf("line 1000 of the file v%d", n+1)
		if n == 0 {
			old = "line 1000 of the file"
		}
		if res := run(b, r, env, "Edit", map[string]any{"file_path": p, "old_string": old + "\n", "new_string": new + "\n"}); res.IsError {
			b.Fatal(res.Output)
		}
		n++
	}
}
