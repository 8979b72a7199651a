package tools

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestClaudeGrepHeadLimitDefaultsTo250: Claude Code's Grep schema (CLI
// 2.1.x): head_limit "Defaults to 250 when unspecified. Pass 0 for
// unlimited"; its applyHeadLimit reports the limit "only … when truncation
// actually occurred", and an offset only when one was given. Content
// mode ends with "[Showing results with pagination = limit: 250]",
// files_with_matches puts it in its header ("Found 250 files limit:
// 250"), count after its summary (" with pagination = …"), whose totals
// are those of the entries shown.
func TestClaudeGrepHeadLimitDefaultsTo250(t *testing.T) {
	r, env := claudeRegistry(t), testEnv(t)
	var body strings.Builder
	for i := range 300 {
		fmt.Fprintf(&body, "hit %d\n", i)
	}
	write(t, env.Cwd, "many.txt", body.String())
	for i := range 260 {
		write(t, env.Cwd, fmt.Sprintf("d/f%03d.txt", i), "hit\nhit\n")
	}
	many := filepath.Join(env.Cwd, "many.txt")
	grep := func(args map[string]any) string {
		args["pattern"] = "hit"
		return run(t, r, env, ClaudeGrep, args).Output
	}
	lines := func(s string) int { return strings.Count(s, "\n") + 1 }

	out := grep(map[string]any{"path": many, "output_mode": "content"})
	if !strings.HasSuffix(out, "\n\n[Showing results with pagination = limit: 250]") || lines(out) != 252 {
		t.Errorf("content, no head_limit: %d lines ending %q", lines(out), out[max(0, len(out)-60):])
	}
	if out := grep(map[string]any{"path": many, "output_mode": "content", "head_limit": 0}); lines(out) != 300 || strings.Contains(out, "pagination") {
		t.Errorf("content, head_limit 0: %d lines", lines(out))
	}
	if out := grep(map[string]any{"path": many, "output_mode": "content", "head_limit": 10, "offset": 295}); !strings.HasSuffix(out, "hit 299\n\n[Showing results with pagination = offset: 295]") {
		t.Errorf("content, offset 295 limit 10: %q", out)
	}
	if out := grep(map[string]any{"path": many, "output_mode": "content", "offset": 400}); out != "No matches found\n\n[Showing results with pagination = offset: 400]" {
		t.Errorf("content, offset past the end: %q", out)
	}
	dir := filepath.Join(env.Cwd, "d")
	out = grep(map[string]any{"path": dir})
	if !strings.HasPrefix(out, "Found 250 files limit: 250\n") || lines(out) != 251 {
		t.Errorf("files, no head_limit: %d lines, header %q", lines(out), strings.SplitN(out, "\n", 2)[0])
	}
	if out := grep(map[string]any{"path": dir, "head_limit": 5, "offset": 2}); !strings.HasPrefix(out, "Found 5 files limit: 5, offset: 2\n") {
		t.Errorf("files, limit 5 offset 2: header %q", strings.SplitN(out, "\n", 2)[0])
	}
	if out := grep(map[string]any{"path": dir, "offset": 300}); out != "No files found" {
		t.Errorf("files, offset past the end: %q", out)
	}
	out = grep(map[string]any{"path": dir, "output_mode": "count", "head_limit": 3})
	if !strings.HasSuffix(out, "\n\nFound 6 total occurrences across 3 files. with pagination = limit: 3") || lines(out) != 5 {
		t.Errorf("count, limit 3: %q", out)
	}
	if out := grep(map[string]any{"path": dir, "output_mode": "count", "head_limit": 0}); !strings.HasSuffix(out, "\n\nFound 520 total occurrences across 260 files.") {
		t.Errorf("count, unlimited: ends %q", out[max(0, len(out)-60):])
	}
}
