package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/grovecli/grove/core/model/modeltest"
	"github.com/grovecli/grove/core/testkit"
)

// TestTmuxSmoke drives the real binary in tmux as a person would: start
// grove with no API key (the demo), approve the working-directory request,
// and read the screen once the demo tree has finished.
func TestTmuxSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("tmux smoke test skipped in -short mode")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed: skipping the TUI smoke test (apt-get install tmux)")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "grove")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	home := filepath.Join(dir, "home")
	session := "grove-smoke-" + filepath.Base(dir)
	// A private tmux server: the test never touches the user's sessions.
	sock := "grove-smoke-" + filepath.Base(filepath.Dir(dir)) // unique per run: tmux sockets are machine-wide
	tmux := func(args ...string) string {
		c := exec.Command("tmux", append([]string{"-L", sock}, args...)...)
		c.Env = append(os.Environ(), "TERM=xterm-256color") // CI may have no TERM
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	env := "env -u OPENAI_API_KEY -u OPENAI_BASE_URL GROVE_HOME=" + home + " TMPDIR=" + dir + " TERM=xterm-256color "
	tmux("new-session", "-d", "-s", session, "-x", "100", "-y", "30", env+bin)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", sock, "kill-server").Run() })

	screen := func() string { return tmux("capture-pane", "-p", "-t", session) }
	waitScreen := func(what string, ok func(string) bool) string {
		t.Helper()
		var s string
		testkit.Eventually(t, "the screen to show "+what, func() bool {
			s = screen()
			return ok(s)
		}, func() string { return "last screen:\n" + s })
		return s
	}
	s := waitScreen("the demo label", func(s string) bool { return strings.Contains(strings.ToLower(s), "demo") })
	if !strings.Contains(s, "grove") {
		t.Fatalf("header missing:\n%s", s)
	}
	// The root asks to start a worker in another directory: the modal is
	// on the root's pane (the agent that asks), with the root's reason.
	waitScreen("the approval modal", func(s string) bool {
		return strings.Contains(s, "another directory") && strings.Contains(s, "asked by: root") && strings.Contains(s, "wants to start a worker")
	})
	// The modal names its keys once its input grace is over.
	waitScreen("the modal listening", func(s string) bool { return strings.Contains(s, "tab to answer") })
	tmux("send-keys", "-t", session, "y")
	s = waitScreen("the finished demo", func(s string) bool { return strings.Contains(s, "Demo complete") })
	for _, want := range []string{"explorer", "worker"} {
		if !strings.Contains(s, want) {
			t.Errorf("final screen lacks %q:\n%s", want, s)
		}
	}
	// Ctrl+C twice on an idle screen quits and restores the terminal; the
	// pane stays so the text grove leaves behind can be read.
	tmux("set-option", "-t", session, "remain-on-exit", "on")
	tmux("send-keys", "-t", session, "C-c")
	tmux("send-keys", "-t", session, "C-c")
	testkit.Eventually(t, "grove to quit on ctrl+c twice", func() bool {
		return strings.TrimSpace(tmux("display-message", "-p", "-t", session, "#{pane_dead}")) == "1"
	}, screen)
	// The root's last answer and the resume command stay in the terminal.
	if s := tmux("capture-pane", "-p", "-S", "-", "-t", session); !strings.Contains(s, "Demo complete") || !strings.Contains(s, "Resume this session with: grove resume ") {
		t.Fatalf("after quitting the terminal shows:\n%s", s)
	}
	if _, err := os.Stat(filepath.Join(home, "session_index.jsonl")); err != nil {
		t.Fatalf("no session recorded: %v", err)
	}
}

// tmuxPane is grove running in a private tmux server (never the user's).
type tmuxPane struct {
	t               *testing.T
	sock, name, bin string
}

// startTmux builds grove and runs cmdline (after env) in a w×h pane.
func startTmux(t *testing.T, w, h int, env string, args ...string) *tmuxPane {
	t.Helper()
	if testing.Short() {
		t.Skip("tmux test skipped in -short mode")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed: skipping (apt-get install tmux)")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "grove")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	// The socket name is unique per run (tmux sockets are machine-wide).
	p := &tmuxPane{t: t, sock: "grove-test-" + filepath.Base(filepath.Dir(dir)), name: "grove", bin: bin}
	line := env + " TERM=xterm-256color " + bin
	for _, a := range args {
		line += " '" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	p.run("new-session", "-d", "-s", p.name, "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), line)
	pid, _ := strconv.Atoi(strings.TrimSpace(p.run("display-message", "-p", "-t", p.name, "#{pane_pid}")))
	t.Cleanup(func() {
		_ = exec.Command("tmux", "-L", p.sock, "kill-server").Run()
		// grove may still be writing its rollout in the test's temp dirs:
		// wait for it to exit before they are removed.
		if pid > 0 {
			testkit.Eventually(t, "grove to exit", func() bool { return syscall.Kill(pid, 0) != nil })
		}
	})
	return p
}

func (p *tmuxPane) run(args ...string) string {
	p.t.Helper()
	c := exec.Command("tmux", append([]string{"-L", p.sock}, args...)...)
	c.Env = append(os.Environ(), "TERM=xterm-256color")
	out, err := c.CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (p *tmuxPane) screen() string { return p.run("capture-pane", "-p", "-t", p.name) }

// typeText types s literally, as a person would (no key names).
func (p *tmuxPane) typeText(s string) { p.run("send-keys", "-t", p.name, "-l", s) }

// key presses named keys (Tab, Enter, C-c).
func (p *tmuxPane) key(keys ...string) {
	p.run(append([]string{"send-keys", "-t", p.name}, keys...)...)
}

func (p *tmuxPane) wait(what string, ok func(string) bool) string {
	p.t.Helper()
	var s string
	testkit.Eventually(p.t, "the screen to show "+what, func() bool {
		s = p.screen()
		return ok(s)
	}, func() string { return "last screen:\n" + s })
	return s
}

// TestTmuxTypingNeverApproves is the approval-safety property on the real
// binary: the model asks for two commands (untrusted policy) while the user
// types a sentence full of y, a and n; nothing is approved and the sentence
// lands in the composer. Then tab + a key answers each one deliberately.
func TestTmuxTypingNeverApproves(t *testing.T) {
	srv := modeltest.NewServer(t)
	var mu sync.Mutex
	requests := 0
	midSentence := make(chan struct{}) // closed once the user is typing
	srv.Handle(func(r modeltest.CapturedRequest) modeltest.Reply {
		mu.Lock()
		requests++
		first := requests == 1
		mu.Unlock()
		if first {
			select { // the approvals arrive mid-sentence
			case <-midSentence:
			case <-t.Context().Done():
			}
			return modeltest.Reply{ToolCalls: []modeltest.ToolCall{
				{ID: "c1", Name: "exec_command", Arguments: `{"cmd":"touch approved-1"}`},
				{ID: "c2", Name: "exec_command", Arguments: `{"cmd":"touch approved-2"}`},
			}}
		}
		return modeltest.Reply{Text: "Both commands are answered."}
	})
	work, home := t.TempDir(), t.TempDir()
	env := "env OPENAI_API_KEY=sk-test OPENAI_BASE_URL=" + srv.URL() + " GROVE_HOME=" + home + " TMPDIR=" + t.TempDir()
	p := startTmux(t, 100, 30, env, "-C", work, "-a", "untrusted", "-m", "test-model", "create two files")
	p.wait("the composer", func(s string) bool { return strings.Contains(s, "to root") })

	words := strings.Fields("yes any way you say, yay and nay: a yak named Andy says yay, any day now, yes yes y a n")
	seenAt := -1
	for i := 0; seenAt < 0 || i < seenAt+len(words)/2; i++ {
		if i > 400 {
			t.Fatalf("the two approvals never showed while typing:\n%s", p.screen())
		}
		// A word at a time, each on screen before the next, as a person
		// types; a few words in, the model's answer is let through.
		w := words[i%len(words)]
		p.typeText(w + " ")
		s := p.wait("the word "+w, func(s string) bool { return strings.Contains(s, w) })
		if i == 4 {
			close(midSentence)
		}
		if seenAt < 0 && strings.Contains(s, "(1 of 2)") {
			seenAt = i
		}
	}
	s := p.screen()
	for _, f := range []string{"approved-1", "approved-2"} {
		if _, err := os.Stat(filepath.Join(work, f)); err == nil {
			t.Fatalf("typing approved a command (%s exists):\n%s", f, s)
		}
	}
	if !strings.Contains(s, "(1 of 2)") || !strings.Contains(s, "typing goes to the composer") {
		t.Fatalf("both approvals should still wait:\n%s", s)
	}
	if !strings.Contains(s, "yay and nay:") {
		t.Fatalf("the sentence did not reach the composer:\n%s", s)
	}
	mu.Lock()
	if requests != 1 {
		t.Errorf("%d model requests: a tool ran without an answer", requests)
	}
	mu.Unlock()

	// Deliberately: tab, then y approves the first; the second asks anew.
	// "enter answer" shows once the modal listens (its input grace over).
	p.key("Tab")
	p.wait("the focused modal", func(s string) bool { return strings.Contains(s, "enter answer") })
	p.typeText("y")
	p.wait("the second approval alone", func(s string) bool {
		return strings.Contains(s, "Allow this command?") && !strings.Contains(s, "(1 of 2)")
	})
	p.key("Tab")
	p.wait("the focused modal", func(s string) bool { return strings.Contains(s, "enter answer") })
	p.typeText("n")
	p.wait("the model's answer", func(s string) bool { return strings.Contains(s, "Both commands are answered.") })
	_, err1 := os.Stat(filepath.Join(work, "approved-1"))
	_, err2 := os.Stat(filepath.Join(work, "approved-2"))
	if (err1 == nil) == (err2 == nil) {
		t.Fatalf("want exactly one command run (one approved, one denied): %v / %v", err1, err2)
	}
	p.key("C-c")
	p.key("C-c")
}

// TestTmuxComposer types into the real binary: ctrl+j keeps line 1 on
// screen, a 30-line bracketed paste becomes a chip and is sent whole, tab
// completes a slash command's argument from the provider's model list.
func TestTmuxComposer(t *testing.T) {
	srv := modeltest.NewServer(t)
	var mu sync.Mutex
	var got []string
	srv.Handle(func(r modeltest.CapturedRequest) modeltest.Reply {
		msgs := r.Messages()
		if len(msgs) > 0 {
			last, _ := msgs[len(msgs)-1].(map[string]any)
			mu.Lock()
			got = append(got, fmt.Sprint(last["content"]))
			mu.Unlock()
		}
		return modeltest.Reply{Text: "received"}
	})
	home := t.TempDir()
	env := "env OPENAI_API_KEY=sk-test OPENAI_BASE_URL=" + srv.URL() + " GROVE_HOME=" + home + " TMPDIR=" + t.TempDir()
	p := startTmux(t, 80, 24, env, "-C", t.TempDir(), "-m", "test-model", "-c", `model_providers.openai.wire_api="chat"`)
	p.wait("the composer", func(s string) bool { return strings.Contains(s, "to root") })

	p.typeText("line1")
	p.key("C-j")
	p.typeText("line2")
	p.wait("both lines", func(s string) bool { return strings.Contains(s, "› line1") && strings.Contains(s, "   line2") })

	var paste strings.Builder
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&paste, "pasted %d\n", i)
	}
	buf := filepath.Join(t.TempDir(), "paste.txt")
	if err := os.WriteFile(buf, []byte(paste.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	p.run("load-buffer", buf)
	p.run("paste-buffer", "-p", "-t", p.name) // bracketed, as a terminal pastes
	p.wait("the paste chip", func(s string) bool { return strings.Contains(s, "line2[pasted 30 lines #1]") })
	p.key("Enter")
	p.wait("the answer", func(s string) bool { return strings.Contains(s, "received") })
	mu.Lock()
	sent := strings.Join(got, "|")
	mu.Unlock()
	if !strings.Contains(sent, "line1\nline2pasted 1\npasted 2\n") || !strings.Contains(sent, "pasted 30") {
		t.Fatalf("the model got %q", sent)
	}

	// 3,000 characters typed without bracketed paste (a terminal that
	// does not bracket, or keys sent by a tool) arrive as one key press a
	// character; they all land and show (issue 35 item 19: 11.5 s before).
	burst := strings.Repeat("fmt.Println(x) ", 199) + "END-OF-BURST"
	start := time.Now()
	p.typeText(burst)
	p.wait("the end of a 3,000-character burst", func(s string) bool { return strings.Contains(s, "END-OF-BURST") })
	t.Logf("3,000 characters typed unbracketed: on screen after %v", time.Since(start))
	p.key("C-c") // clears the draft

	p.typeText("/model te")
	p.key("Tab")
	p.wait("the completed model name", func(s string) bool { return strings.Contains(s, "› /model test-model") })
	p.key("Enter")
	p.wait("the model confirmation", func(s string) bool { return strings.Contains(s, "model set to test-model") })
	p.key("C-c")
	p.key("C-c")
}

// TestTmuxTreeCursorStaysVisible: twelve agents with notes (two rows each)
// at 80x24; moving the tree cursor to the last one keeps it on screen.
func TestTmuxTreeCursorStaysVisible(t *testing.T) {
	srv := modeltest.NewServer(t)
	srv.Handle(func(r modeltest.CapturedRequest) modeltest.Reply {
		msgs := r.Messages()
		first, _ := msgs[len(msgs)-1].(map[string]any)
		switch {
		case fmt.Sprint(first["content"]) == "spawn twelve":
			var calls []modeltest.ToolCall
			for i := 1; i <= 12; i++ {
				calls = append(calls, modeltest.ToolCall{ID: fmt.Sprintf("s%d", i), Name: "spawn_agent",
					Arguments: fmt.Sprintf(`{"agent_type":"explorer","message":"look","thread_note":"task %02d"}`, i)})
			}
			return modeltest.Reply{ToolCalls: calls}
		case first["role"] == "tool":
			return modeltest.Reply{Text: "all spawned"}
		}
		return modeltest.Reply{Text: "looked"}
	})
	env := "env OPENAI_API_KEY=sk-test OPENAI_BASE_URL=" + srv.URL() + " GROVE_HOME=" + t.TempDir() + " TMPDIR=" + t.TempDir()
	p := startTmux(t, 80, 24, env, "-C", t.TempDir(), "-m", "test-model", "-c", `model_providers.openai.wire_api="chat"`,
		"-c", "agents.max_threads=20", "spawn twelve")
	p.wait("twelve agents", func(s string) bool { return strings.Contains(s, "agents 13") && strings.Contains(s, "all spawned") })
	p.key("Tab")
	for range 12 {
		p.key("Down")
	}
	p.key("Enter") // focus the last agent (spawn order is not fixed)
	s := p.wait("the last agent's transcript", func(s string) bool { return strings.Contains(s, "(explorer) ✓ completed · task ") })
	title := strings.SplitN(s, "\n", 3)[1]
	note := title[strings.Index(title, "task "):][:len("task 00")]
	var tree []string
	for _, l := range strings.Split(s, "\n")[2:] {
		if r := []rune(l); len(r) > 24 {
			tree = append(tree, string(r[:24])) // the tree column at 80x24
		} else {
			tree = append(tree, l)
		}
	}
	joined := strings.Join(tree, "\n")
	if !strings.Contains(joined, note) || strings.Contains(joined, "✓ root") {
		t.Fatalf("the focused agent (%s) is not in the scrolled tree:\n%s", note, s)
	}
	p.key("C-c")
	p.key("C-c")
}

// TestTmuxResumedDemoKeepsHowChildrenEnded: run the demo to its end, quit,
// resume it: the children still show ✓ (closed is a marker, not their
// status), cards are rebuilt instead of raw JSON, and /resume of the open
// session does not open it twice.
func TestTmuxResumedDemoKeepsHowChildrenEnded(t *testing.T) {
	home, tmp := t.TempDir(), t.TempDir()
	env := "env -u OPENAI_API_KEY -u OPENAI_BASE_URL GROVE_HOME=" + home + " TMPDIR=" + tmp
	p := startTmux(t, 100, 30, env)
	p.wait("the approval modal, listening", func(s string) bool {
		return strings.Contains(s, "another directory") && strings.Contains(s, "tab to answer")
	})
	p.typeText("y")
	// The turn's end, not the last streamed words: the final reply's
	// token usage reaches the status line after its text has streamed, and
	// the text wraps where the scratch directory's (random) name ends.
	s := p.wait("the finished demo", demoFinished)
	before := tokensField(s)
	nicks := nicknamesOn(s)
	p.run("set-option", "-t", p.name, "remain-on-exit", "on")
	p.key("C-c")
	p.key("C-c")
	p.wait("grove to quit", func(s string) bool { return strings.Contains(s, "grove resume ") })

	p.run("respawn-pane", "-k", "-t", p.name, env+" TERM=xterm-256color "+p.bin+" resume --last")
	// The status line can draw a frame after the transcript: wait for both.
	s = p.wait("the resumed session and its status line", func(s string) bool { return strings.Contains(s, "Demo complete") && tokensField(s) != "" })
	// Issue 35 item 3: the resumed totals are the ones grove quit with.
	if after := tokensField(s); before == "" || after != before {
		t.Errorf("token totals before quitting %q, after resuming %q", before, after)
	}
	for _, bad := range []string{"■ explorer", "■ worker", `{"agent_id"`, `{"status"`, "root 0 · all 0 tok"} {
		if strings.Contains(s, bad) {
			t.Errorf("resumed screen shows %q:\n%s", bad, s)
		}
	}
	// Both children keep their ✓ in the tree (a long nickname can cut the
	// role after it, so the role is not what this looks for).
	if n := len(regexp.MustCompile(`[├└] ✓ [A-Z]`).FindAllString(s, -1)); n < 2 {
		t.Errorf("children lost how they ended (%d tree rows with ✓):\n%s", n, s)
	}
	// The engine's nicknames, recorded in the rollouts: the same names.
	if after := nicknamesOn(s); len(nicks) != 2 || !slices.Equal(after, nicks) {
		t.Errorf("nicknames before quitting %v, after resuming %v:\n%s", nicks, after, s)
	}
	p.typeText("/resume")
	p.key("Enter")
	p.wait("the picker marking this session", func(s string) bool { return strings.Contains(s, "● open") })
	p.key("Enter")
	p.wait("the no-op message", func(s string) bool { return strings.Contains(s, "is already open") })
	p.key("C-c")
	p.key("C-c")
	// grove removes the demo's scratch project as it exits: let it finish
	// before the test's temp dirs are removed.
	p.wait("grove to quit again", func(s string) bool { return strings.Contains(s, "grove resume ") })
}

// TestTmuxEscalationYolo is issue 21's case in the real binary: a request
// to run outside the sandbox is up, the user pauses, then types "yolo" and
// Enter: nothing is approved. Approving takes tab, y, and Enter on the red
// confirmation.
func TestTmuxEscalationYolo(t *testing.T) {
	srv := modeltest.NewServer(t)
	var mu sync.Mutex
	requests := 0
	srv.Handle(func(r modeltest.CapturedRequest) modeltest.Reply {
		mu.Lock()
		requests++
		first := requests == 1
		mu.Unlock()
		if first {
			return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: "exec_command",
				Arguments: `{"cmd":"touch escalated","sandbox_permissions":"require_escalated","justification":"writes outside the workspace"}`}}}
		}
		// Not "outside the sandbox": the test waits for that phrase (the
		// modal's badge) to leave the screen, and the answer may already
		// be there by then (the login snapshot is taken at start now).
		return modeltest.Reply{Text: "Done, escalated."}
	})
	work, home := t.TempDir(), t.TempDir()
	env := "env OPENAI_API_KEY=sk-test OPENAI_BASE_URL=" + srv.URL() + " GROVE_HOME=" + home + " TMPDIR=" + t.TempDir()
	p := startTmux(t, 80, 24, env, "-C", work, "-a", "on-request", "-m", "test-model", "set it up")
	p.wait("the escalation", func(s string) bool {
		return strings.Contains(s, "outside the sandbox") && strings.Contains(s, "touch escalated")
	})
	// The user looks away past the input grace (the modal then names its
	// keys): a pause must not change where keys go.
	p.wait("the escalation listening", func(s string) bool { return strings.Contains(s, "tab to answer") })
	p.typeText("yolo")
	p.key("Enter")
	// Keys are handled in order: once the sent remainder shows, the y
	// before it was handled too, and the modal must still wait.
	s := p.wait("yolo's remainder sent as a message", func(s string) bool { return strings.Contains(s, "olo") })
	if _, err := os.Stat(filepath.Join(work, "escalated")); err == nil {
		t.Fatalf("typing approved a command outside the sandbox:\n%s", s)
	}
	if !strings.Contains(s, "outside the sandbox") || !strings.Contains(s, "typing goes to the composer") {
		t.Fatalf("the escalation should still wait, unfocused:\n%s", s)
	}
	p.key("Tab")
	p.wait("the focused modal", func(s string) bool { return strings.Contains(s, "enter answer") })
	p.typeText("y")
	p.wait("the red confirmation", func(s string) bool { return strings.Contains(s, "OUTSIDE the sandbox?") })
	if _, err := os.Stat(filepath.Join(work, "escalated")); err == nil {
		t.Fatal("y alone approved an escalation")
	}
	// enter confirms once the confirmation's own grace is over.
	p.wait("the confirmation listening", func(s string) bool { return strings.Contains(s, "yes, outside the sandbox") })
	p.key("Enter")
	// Answered: the modal is gone. Whether the command then finishes is
	// the engine's and the login shell's part (a stale pyenv rehash lock
	// stalls every bash -lc for 60 s on this machine: .ci/run clears it).
	s = p.wait("the escalation answered", func(s string) bool {
		return !strings.Contains(s, "Allow this command?") && !strings.Contains(s, "1 approval") && strings.Contains(s, "✔ You approved outside the sandbox")
	})
	// The trace reads right after the request, before the command's card
	// and output (Codex's approval history cell precedes its exec cell).
	trace, card := -1, -1
	for i, l := range strings.Split(s, "\n") {
		switch {
		case trace < 0 && strings.Contains(l, "✔ You approved outside the sandbox"):
			trace = i
		case card < 0 && strings.Contains(l, "exec_command $ touch escalated"):
			card = i
		}
	}
	if card >= 0 && trace > card {
		t.Fatalf("the approval's trace comes after the command:\n%s", s)
	}
	p.key("C-c")
	p.key("C-c")
}

// nicknamesOn lists the tree's "Name (role" labels, in order (a long
// nickname cuts the role: "Schrodinger (explore…", so only its start).
func nicknamesOn(screen string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`[├└] \S+ ([A-Z][A-Za-z]+(?: \d+)?) \((expl|work)`).FindAllStringSubmatch(screen, -1) {
		out = append(out, m[1]+"/"+m[2])
	}
	return out
}

// tokensField is the status line's "root N · all M" token field.
// demoFinished: the demo's summary is on screen and the root's turn has
// ended (its pane title says so), so nothing the turn reports is still on
// its way to the screen.
func demoFinished(s string) bool {
	return strings.Contains(s, "Demo complete") && strings.Contains(s, "root ✓ completed")
}

func tokensField(screen string) string {
	lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	last := lines[len(lines)-1]
	i := strings.Index(last, "root ")
	if i < 0 {
		return ""
	}
	f := last[i:]
	if j := strings.Index(f, " │"); j >= 0 {
		f = f[:j]
	}
	return strings.TrimSpace(strings.TrimSuffix(f, "…"))
}
