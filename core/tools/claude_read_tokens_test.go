package tools

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestClaudeReadPagedOverTokenLimit: the tools reference's "A read that
// passes an explicit offset or limit and still exceeds the token limit
// returns an error", in the words a recorded Claude Code session shows:
// "File content (33320 tokens) exceeds maximum allowed tokens (25000).
// Use offset and limit parameters …". The limit follows
// CLAUDE_CODE_FILE_READ_MAX_OUTPUT_TOKENS; a smaller page of the same
// file is read; a refused read does not count as a read.
func TestClaudeReadPagedOverTokenLimit(t *testing.T) {
	t.Setenv("CLAUDE_CODE_FILE_READ_MAX_OUTPUT_TOKENS", "")
	r, env := claudeRegistry(t), testEnv(t)
	env.ThreadID = "t"
	line := strings.Repeat("x", 1999) // 2000 characters with its newline: 500 tokens
	write(t, env.Cwd, "big.txt", strings.Repeat(line+"\n", 60))
	p := filepath.Join(env.Cwd, "big.txt")
	res := run(t, r, env, ClaudeRead, map[string]any{"file_path": p, "offset": 1, "limit": 51})
	want := "File content (25500 tokens) exceeds maximum allowed tokens (25000). Use offset and limit parameters to read specific portions of the file, or search for specific content instead of reading the whole file."
	if !res.IsError || res.Output != want {
		t.Fatalf("51 long lines: %v %q", res.IsError, res.Output)
	}
	if got := run(t, r, env, ClaudeEdit, map[string]any{"file_path": p, "old_string": "x\n", "new_string": "y\n", "replace_all": true}).Output; got != claudeNotRead {
		t.Fatalf("Edit after the refused read: %q", got)
	}
	if res := run(t, r, env, ClaudeRead, map[string]any{"file_path": p, "offset": 10, "limit": 50}); res.IsError || !strings.HasPrefix(res.Output, "    10→x") {
		t.Fatalf("50 long lines: %v %.40q", res.IsError, res.Output)
	}
	t.Setenv("CLAUDE_CODE_FILE_READ_MAX_OUTPUT_TOKENS", "1000")
	if res := run(t, r, env, ClaudeRead, map[string]any{"file_path": p, "limit": 3}); !res.IsError || !strings.HasPrefix(res.Output, "File content (1500 tokens) exceeds maximum allowed tokens (1000).") {
		t.Fatalf("3 lines under a limit of 1000: %v %q", res.IsError, res.Output)
	}
}
