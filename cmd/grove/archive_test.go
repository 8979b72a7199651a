package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/grovecli/grove/rollout"
)

// TestArchiveCommandsHideAndRestoreASession: `grove archive` moves a
// session's rollout into archived_sessions/ and out of `grove sessions
// list`; resuming it is refused naming `grove unarchive` (Codex:
// thread_resume.rs thread_resume_rejects_archived_session_by_id), which
// brings it back to where it was, resumable again.
func TestArchiveCommandsHideAndRestoreASession(t *testing.T) {
	needBinary(t)
	srv := durabilityServer(t)
	home := filepath.Join(t.TempDir(), "home")
	if code, _, errOut := execIn(t, home, srv.URL(), "first prompt"); code != 0 {
		t.Fatalf("exec: %s", errOut)
	}
	e, err := rollout.LastSession(home)
	if err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (int, string) {
		p := startGrove(t, providerEnv(home, srv.URL()), args...)
		code, _ := p.waitExit(t, time.Now())
		return code, p.stdout.String() + p.stderr.String()
	}
	if code, out := run("archive", string(e.ID)); code != 0 {
		t.Fatalf("archive: %s", out)
	}
	if _, err := os.Stat(filepath.Join(home, rollout.ArchivedDir, filepath.Base(e.RolloutPath))); err != nil {
		t.Fatalf("archived rollout: %v", err)
	}
	if code, out := run("sessions", "list", "--json"); code != 0 || strings.TrimSpace(out) != "" {
		t.Fatalf("sessions list shows an archived session: %q", out)
	}
	code, out, errOut := execIn(t, home, srv.URL(), "--resume", string(e.ID), "again")
	if code == 0 || !strings.Contains(errOut, "session "+string(e.ID)+" is archived") || !strings.Contains(errOut, "`grove unarchive "+string(e.ID)+"`") {
		t.Fatalf("resume of an archived session: exit %d %s %s", code, out, errOut)
	}
	if code, out := run("unarchive", string(e.ID)); code != 0 {
		t.Fatalf("unarchive: %s", out)
	}
	if _, err := os.Stat(e.RolloutPath); err != nil {
		t.Fatalf("rollout not restored: %v", err)
	}
	if code, out, errOut := execIn(t, home, srv.URL(), "--resume", string(e.ID), "again"); code != 0 || !strings.Contains(out, "answer to again") {
		t.Fatalf("resume after unarchive: exit %d %s %s", code, out, errOut)
	}
}
