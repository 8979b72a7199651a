package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/grovecli/grove/core/model/modeltest"
)

// TestTmuxDiffReviewRevertsAHunk drives the diff review in the real
// binary: the model patches two places of a file; the user opens ctrl+d,
// moves to the second hunk, presses r, confirms with y; the file on disk
// loses exactly that hunk, the screen marks it, and the model's next
// request carries grove's note that the user reverted it.
func TestTmuxDiffReviewRevertsAHunk(t *testing.T) {
	const base = "package calc\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n\nfunc Sub(a, b int) int {\n\treturn a - b\n}\n"
	const p = "*** Begin Patch\n*** Update File: calc.go\n@@ func Add(a, b int) int {\n-\treturn a + b\n+\treturn b + a // commutes\n@@ func Sub(a, b int) int {\n-\treturn a - b\n+\treturn -(b - a)\n*** End Patch"
	srv := modeltest.NewServer(t)
	var mu sync.Mutex
	var bodies [][]byte
	srv.Handle(func(r modeltest.CapturedRequest) modeltest.Reply {
		mu.Lock()
		bodies = append(bodies, r.Raw)
		n := len(bodies)
		mu.Unlock()
		if n == 1 {
			args, _ := json.Marshal(map[string]string{"input": p})
			return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: "apply_patch", Arguments: string(args)}}}
		}
		if n == 2 {
			return modeltest.Reply{Text: "Patched calc.go in two places."}
		}
		return modeltest.Reply{Text: "Understood: Sub is back as it was."}
	})
	work, home := t.TempDir(), t.TempDir()
	file := filepath.Join(work, "calc.go")
	if err := os.WriteFile(file, []byte(base), 0o644); err != nil {
		t.Fatal(err)
	}
	env := "env OPENAI_API_KEY=sk-test OPENAI_BASE_URL=" + srv.URL() + " GROVE_HOME=" + home + " TMPDIR=" + t.TempDir()
	pane := startTmux(t, 100, 30, env, "-C", work, "-m", "test-model", "tidy calc.go")
	pane.wait("the patch", func(s string) bool {
		// (The status line's "ctrl+d diff" hint gives way to the long test
		// directory at 100 columns; help lists the key.)
		return strings.Contains(s, "Patched calc.go in two places.")
	})
	pane.key("C-d")
	pane.wait("the review", func(s string) bool {
		return strings.Contains(s, "Diff review · this turn") && strings.Contains(s, "› ▾ hunk 1/2 @@ func Add(a, b int) int {")
	})
	pane.key("Down")
	pane.wait("the second hunk selected", func(s string) bool { return strings.Contains(s, "› ▾ hunk 2/2 @@ func Sub(a, b int) int {") })
	pane.typeText("r")
	pane.wait("the confirmation", func(s string) bool { return strings.Contains(s, "revert hunk 2 of calc.go on disk?") })
	if b, _ := os.ReadFile(file); !strings.Contains(string(b), "-(b - a)") {
		t.Fatalf("r alone changed the file:\n%s", b)
	}
	pane.typeText("y")
	// The mark comes with the engine's patch_reverted event, the result
	// line with the revert's answer: two messages, drawn in either order
	// and maybe a frame apart.
	pane.wait("the hunk marked reverted and the result line", func(s string) bool {
		return strings.Contains(s, "hunk 2/2 @@ func Sub(a, b int) int { +1 -1 ↶ reverted") && strings.Contains(s, "reverted hunk 2 of calc.go")
	})
	want := strings.Replace(base, "return a + b", "return b + a // commutes", 1)
	if b, _ := os.ReadFile(file); string(b) != want {
		t.Fatalf("calc.go after the revert:\n%s\nwant:\n%s", b, want)
	}
	pane.key("Escape")
	pane.wait("the transcript's note", func(s string) bool { return strings.Contains(s, "↶ you reverted 1 hunk of") })
	pane.typeText("what now?")
	pane.key("Enter")
	pane.wait("the answer", func(s string) bool { return strings.Contains(s, "Sub is back as it was.") })
	mu.Lock()
	last := string(bodies[len(bodies)-1])
	mu.Unlock()
	if !strings.Contains(last, "The user reverted 1 hunk(s) of your apply_patch call c1") || !strings.Contains(last, "calc.go") {
		t.Fatalf("the next request does not tell the model:\n%s", last)
	}

	// A resumed session shows the revert: the rollout recorded it.
	pane.run("set-option", "-t", pane.name, "remain-on-exit", "on")
	pane.key("C-c")
	pane.key("C-c")
	pane.wait("grove to quit", func(s string) bool { return strings.Contains(s, "grove resume ") })
	pane.run("respawn-pane", "-k", "-t", pane.name, env+" TERM=xterm-256color "+pane.bin+" -C "+work+" resume --last")
	pane.wait("the resumed session", func(s string) bool { return strings.Contains(s, "Sub is back as it was.") })
	pane.key("C-d")
	pane.wait("the review of the resumed session", func(s string) bool {
		return strings.Contains(s, "Diff review · whole session") && strings.Contains(s, "hunk 2/2 @@ func Sub(a, b int) int { +1 -1 ↶ reverted") &&
			strings.Contains(s, "1 reverted · 0 accepted")
	})
	pane.key("Escape")
	// Esc, then ctrl+c at once, reads as alt+ctrl+c: wait for the screen to close.
	pane.wait("the review closed", func(s string) bool { return !strings.Contains(s, "Diff review") })
	pane.key("C-c")
	pane.key("C-c")
	pane.wait("grove to quit again", func(s string) bool { return strings.Contains(s, "grove resume ") })
}
