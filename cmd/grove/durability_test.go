package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/grovecli/grove/core/model/modeltest"
	"github.com/grovecli/grove/core/testkit"
	"github.com/grovecli/grove/rollout"
	"github.com/grovecli/grove/rollout/rollouttest"
)

// durabilityServer answers every prompt with "answer to <last user
// message>", and hangs on "hold" (a grove that is busy mid-turn).
func durabilityServer(t *testing.T) *modeltest.Server {
	srv := modeltest.NewServer(t)
	srv.Handle(func(r modeltest.CapturedRequest) modeltest.Reply {
		last := parseChat(r).lastUser
		if strings.Contains(last, "hold") {
			return modeltest.Reply{Hang: true}
		}
		return modeltest.Reply{Text: "answer to " + last}
	})
	return srv
}

// execIn runs grove exec to completion in home and returns its exit code,
// stdout and stderr.
func execIn(t *testing.T, home, url string, args ...string) (int, string, string) {
	t.Helper()
	p := startGrove(t, providerEnv(home, url), append([]string{"exec"}, args...)...)
	code, _ := p.waitExit(t, time.Now())
	return code, p.stdout.String(), p.stderr.String()
}

// onlySession returns the id of the home's one root session.
func onlySession(t *testing.T, home string) string {
	t.Helper()
	e, err := rollout.LastSession(home)
	if err != nil {
		t.Fatal(err)
	}
	return string(e.ID)
}

// TestCopiedHomeResumesFromItsOwnFiles: a home copied elsewhere (a new
// laptop, a restore) with the original deleted resumes every session and
// appends to the copy's rollout.
func TestCopiedHomeResumesFromItsOwnFiles(t *testing.T) {
	needBinary(t)
	srv := durabilityServer(t)
	base := t.TempDir()
	orig, moved := filepath.Join(base, "orig"), filepath.Join(base, "moved")
	if code, _, errOut := execIn(t, orig, srv.URL(), "remember the number 41"); code != 0 {
		t.Fatalf("first run exit %d: %s", code, errOut)
	}
	id := onlySession(t, orig)
	if out, err := exec.Command("cp", "-a", orig, moved).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	if err := os.RemoveAll(orig); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := execIn(t, moved, srv.URL(), "--resume", id, "and now 42")
	if code != 0 || !strings.Contains(out, "answer to and now 42") {
		t.Fatalf("resume from the copy: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	reqs := srv.Requests()
	if texts := parseChat(reqs[len(reqs)-1]).texts; len(texts) < 2 || !strings.Contains(strings.Join(texts, "|"), "remember the number 41") {
		t.Fatalf("the resumed model did not get the first prompt back: %q", texts)
	}
	if _, err := os.Stat(orig); !os.IsNotExist(err) {
		t.Fatalf("resuming the copy recreated the original home: %v", err)
	}
}

// TestSecondGroveOnOneSession: while one grove works in a session, a second
// `grove exec --resume` is refused naming the holder and writes nothing;
// with --fork it continues a copy as a new session.
func TestSecondGroveOnOneSession(t *testing.T) {
	needBinary(t)
	srv := durabilityServer(t)
	home := filepath.Join(t.TempDir(), "home")
	if code, _, errOut := execIn(t, home, srv.URL(), "start"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	id := onlySession(t, home)
	first := startGrove(t, providerEnv(home, srv.URL()), "exec", "--resume", id, "hold on")
	testkit.Eventually(t, "the first grove to be mid-turn", func() bool { return len(srv.Requests()) >= 2 }, first.stderr.String)
	entry, err := rollout.FindSession(home, id)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(entry.RolloutPath)
	code, _, errOut := execIn(t, home, srv.URL(), "--resume", id, "me too")
	if code == 0 || !strings.Contains(errOut, "open for writing by process") || !strings.Contains(errOut, "--fork") {
		t.Fatalf("second resume: exit %d, stderr %s", code, errOut)
	}
	if after, _ := os.ReadFile(entry.RolloutPath); string(after) != string(before) {
		t.Fatal("the refused grove wrote into the live session")
	}
	code, out, errOut := execIn(t, home, srv.URL(), "--resume", id, "--fork", "forked work")
	if code != 0 || !strings.Contains(out, "answer to forked work") {
		t.Fatalf("fork: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	_ = first.cmd.Process.Signal(syscall.SIGTERM)
	first.waitExit(t, time.Now())
	list, _, err := rollout.ListSessions(home, 0, 10)
	if err != nil || len(list) != 2 {
		t.Fatalf("sessions after the fork: %+v %v", list, err)
	}
}

// TestFIFORolloutFailsFast: a named pipe in place of a rollout is refused
// with its name; grove does not hang reading it.
func TestFIFORolloutFailsFast(t *testing.T) {
	needBinary(t)
	srv := durabilityServer(t)
	home := filepath.Join(t.TempDir(), "home")
	if code, _, errOut := execIn(t, home, srv.URL(), "start"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	id := onlySession(t, home)
	entry, _ := rollout.FindSession(home, id)
	if err := os.Remove(entry.RolloutPath); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(entry.RolloutPath, 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := execIn(t, home, srv.URL(), "--resume", id, "go on")
	if code == 0 || !strings.Contains(errOut, "named pipe") {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
}

// TestLostIndexHidesNoSession: a session whose index line could not be
// written (the index was not writable) is still listed and resumable, and
// `grove sessions reindex` rebuilds a deleted index.
func TestLostIndexHidesNoSession(t *testing.T) {
	needBinary(t)
	srv := durabilityServer(t)
	home := filepath.Join(t.TempDir(), "home")
	if err := os.MkdirAll(filepath.Join(home, rollout.IndexFile), 0o700); err != nil { // not a writable file
		t.Fatal(err)
	}
	code, _, errOut := execIn(t, home, srv.URL(), "an orphan's prompt")
	if code != 0 || !strings.Contains(errOut, "session index") {
		t.Fatalf("exit %d, want 0 with a warning about the index; stderr %s", code, errOut)
	}
	if err := os.Remove(filepath.Join(home, rollout.IndexFile)); err != nil {
		t.Fatal(err)
	}
	p := startGrove(t, providerEnv(home, srv.URL()), "sessions", "list", "--json")
	if code, _ := p.waitExit(t, time.Now()); code != 0 {
		t.Fatalf("sessions list: %s", p.stderr.String())
	}
	var e rollout.IndexEntry
	if err := json.Unmarshal([]byte(strings.SplitN(p.stdout.String(), "\n", 2)[0]), &e); err != nil || e.FirstPrompt != "an orphan's prompt" {
		t.Fatalf("listed %q (%v)", p.stdout.String(), err)
	}
	if code, out, errOut := execIn(t, home, srv.URL(), "--resume", string(e.ID), "again"); code != 0 || !strings.Contains(out, "answer to again") {
		t.Fatalf("resume the recovered session: exit %d %s %s", code, out, errOut)
	}
	if err := os.Remove(filepath.Join(home, rollout.IndexFile)); err != nil {
		t.Fatal(err)
	}
	p = startGrove(t, providerEnv(home, srv.URL()), "sessions", "reindex")
	if code, _ := p.waitExit(t, time.Now()); code != 0 || !strings.Contains(p.stdout.String(), "1 recovered") {
		t.Fatalf("reindex: %s %s", p.stdout.String(), p.stderr.String())
	}
}

// TestFullDiskFailsExec: a home on a file system that fills up mid-session
// makes grove exec exit non-zero, saying what was not recorded, and leaves
// a rollout that reads back without torn lines.
func TestFullDiskFailsExec(t *testing.T) {
	needBinary(t)
	home := filepath.Join(t.TempDir(), "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	rollouttest.MountTmpfs(t, home, "192k")
	srv := modeltest.NewServer(t)
	srv.Handle(func(r modeltest.CapturedRequest) modeltest.Reply {
		// The disk fills while the model answers its first request.
		if len(parseChat(r).outputs) == 0 {
			if err := rollouttest.FillDisk(home); err != nil {
				t.Error(err)
			}
			return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: "update_plan", Arguments: `{"plan":[{"step":"` + strings.Repeat("s", 3000) + `","status":"pending"}]}`}}}
		}
		return modeltest.Reply{Text: "done"}
	})
	code, out, errOut := execIn(t, home, srv.URL(), "work")
	if code == 0 || !strings.Contains(errOut, "not recorded") {
		t.Fatalf("exit %d on a full disk\nstdout %s\nstderr %s", code, out, errOut)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("%d model requests; the turn must stop before the next one", n)
	}
	files, _ := filepath.Glob(filepath.Join(home, "sessions", "*", "*", "*", "*.jsonl"))
	for _, f := range files {
		s, err := rollout.Read(f)
		if err != nil || len(s.Warnings) != 0 {
			t.Fatalf("%s: %v %q", f, err, s.Warnings)
		}
	}
}

// TestFullDiskExecJSONEndsTurnFailed (issue 36.3): the stopped turn of a
// full disk reaches `grove exec --json` as turn.failed carrying the
// reason, never turn.completed: an SDK consumer must not see success.
func TestFullDiskExecJSONEndsTurnFailed(t *testing.T) {
	needBinary(t)
	home := filepath.Join(t.TempDir(), "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	rollouttest.MountTmpfs(t, home, "192k")
	srv := modeltest.NewServer(t)
	srv.Handle(func(r modeltest.CapturedRequest) modeltest.Reply {
		if len(parseChat(r).outputs) == 0 {
			if err := rollouttest.FillDisk(home); err != nil {
				t.Error(err)
			}
			return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: "update_plan", Arguments: `{"plan":[{"step":"` + strings.Repeat("s", 3000) + `","status":"pending"}]}`}}}
		}
		return modeltest.Reply{Text: "done"}
	})
	code, out, errOut := execIn(t, home, srv.URL(), "--json", "work")
	if code == 0 {
		t.Fatalf("exit 0 on a full disk\nstderr %s", errOut)
	}
	var types []string
	var failure string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var ev struct {
			Type  string `json:"type"`
			Error *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("stdout line %q: %v", line, err)
		}
		types = append(types, ev.Type)
		if ev.Type == "turn.failed" && ev.Error != nil {
			failure = ev.Error.Message
		}
	}
	if last := types[len(types)-1]; last != "turn.failed" || slices.Contains(types, "turn.completed") {
		t.Fatalf("events %v, want the stream to end turn.failed and never turn.completed", types)
	}
	if !strings.Contains(failure, "can no longer be recorded") {
		t.Fatalf("turn.failed says %q, want the reason", failure)
	}
}
