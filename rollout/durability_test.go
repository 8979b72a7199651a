package rollout

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/grovecli/grove/core/testkit"
	"github.com/grovecli/grove/protocol"
)

// indexed creates a rollout for id in home and lists it in the index.
func indexed(t *testing.T, home string, id protocol.ThreadID, parent protocol.ThreadID, prompt string) string {
	t.Helper()
	m := testMeta(id)
	m.ParentID = parent
	r, err := Create(home, m)
	if err != nil {
		t.Fatal(err)
	}
	must(t, r.AppendItem(protocol.UserMessage(prompt)))
	must(t, r.Close())
	must(t, AppendIndex(home, IndexEntry{ID: id, ParentID: parent, Cwd: "/w", UpdatedAt: t0, FirstPrompt: prompt, RolloutPath: r.Path()}))
	return r.Path()
}

// copyTree copies a home as a backup or a new laptop would.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	if out, err := exec.Command("cp", "-a", from+"/.", to).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
}

// TestIndexStoresPathsRelativeToHome: the index names rollouts relative to
// the home, so a copied home with the original deleted resumes from (and
// appends to) its own files.
func TestIndexStoresPathsRelativeToHome(t *testing.T) {
	orig, moved := t.TempDir(), t.TempDir()
	indexed(t, orig, "s1", "", "hello")
	raw, err := os.ReadFile(filepath.Join(orig, IndexFile))
	must(t, err)
	if strings.Contains(string(raw), orig) || !strings.Contains(string(raw), `"rollout_path":"sessions/`) {
		t.Fatalf("index holds an absolute path: %s", raw)
	}
	copyTree(t, orig, moved)
	must(t, os.RemoveAll(orig))
	e, err := FindSession(moved, "s1")
	must(t, err)
	if !strings.HasPrefix(e.RolloutPath, moved) {
		t.Fatalf("resolved to %s, want a file under %s", e.RolloutPath, moved)
	}
	s, err := Read(e.RolloutPath)
	must(t, err)
	if len(s.Items) != 1 || s.Items[0].Content != "hello" {
		t.Fatalf("items %+v", s.Items)
	}
}

// TestLegacyAbsolutePathsFollowTheHome: an index written by an older grove
// (absolute paths) in a copied home resolves to the copy's rollouts even
// while the original still exists, so the copy never writes into it.
func TestLegacyAbsolutePathsFollowTheHome(t *testing.T) {
	orig, moved := t.TempDir(), t.TempDir()
	path := indexed(t, orig, "s1", "", "hello")
	legacy := `{"id":"s1","cwd":"/w","updated_at":"2026-11-23T10:00:00Z","child_count":0,"rollout_path":"` + path + `"}` + "\n"
	must(t, os.WriteFile(filepath.Join(orig, IndexFile), []byte(legacy), 0o600))
	copyTree(t, orig, moved)
	e, err := FindSession(moved, "s1")
	must(t, err)
	if want := filepath.Join(moved, strings.TrimPrefix(path, orig)); e.RolloutPath != want {
		t.Fatalf("resolved to %s, want %s", e.RolloutPath, want)
	}
}

// TestIndexRebuiltWhenMissing: the index is a cache; without it every
// session is still listed, newest first, with its summary.
func TestIndexRebuiltWhenMissing(t *testing.T) {
	home := t.TempDir()
	indexed(t, home, "old", "", "first task")
	indexed(t, home, "kid", "old", "child task")
	must(t, os.Remove(filepath.Join(home, IndexFile)))
	list, _, err := ListSessions(home, 0, 10)
	must(t, err)
	if len(list) != 1 || list[0].ID != "old" || list[0].FirstPrompt != "first task" || list[0].ChildCount != 1 {
		t.Fatalf("rebuilt list %+v", list)
	}
	kids, err := Children(home, "old")
	must(t, err)
	if len(kids) != 1 || kids[0].ID != "kid" {
		t.Fatalf("children %+v", kids)
	}
}

// TestIndexTruncatedMidFileHidesNothing: an index cut in the middle of a
// line (a restore from a partial backup) still lists every intact session.
func TestIndexTruncatedMidFileHidesNothing(t *testing.T) {
	home := t.TempDir()
	for _, id := range []protocol.ThreadID{"a", "b", "c"} {
		indexed(t, home, id, "", "task "+string(id))
	}
	idx := filepath.Join(home, IndexFile)
	raw, err := os.ReadFile(idx)
	must(t, err)
	must(t, os.WriteFile(idx, raw[:len(raw)/3], 0o600)) // only part of line 1 survives
	list, _, err := ListSessions(home, 0, 10)
	must(t, err)
	if got := ids(list); len(list) != 3 || !strings.Contains(got, "a") || !strings.Contains(got, "b") || !strings.Contains(got, "c") {
		t.Fatalf("listed %q after truncation, want all three", got)
	}
	rep, err := Reindex(home, false)
	must(t, err)
	if rep.Rewritten || rep.Rollouts != 3 || rep.Listed != 3 {
		t.Fatalf("second check should find nothing to do: %+v", rep)
	}
}

// TestFindSessionRecoversAnUnindexedRollout: a session whose index line was
// never written (the index could not be written) is found by id.
func TestFindSessionRecoversAnUnindexedRollout(t *testing.T) {
	home := t.TempDir()
	indexed(t, home, "listed", "", "x")
	ListSessions(home, 0, 1) // this process has checked the index once
	r, err := Create(home, testMeta("orphan"))
	must(t, err)
	must(t, r.AppendItem(protocol.UserMessage("lost prompt")))
	must(t, r.Close())
	e, err := FindSession(home, "orphan")
	must(t, err)
	if e.RolloutPath != r.Path() || e.FirstPrompt != "lost prompt" {
		t.Fatalf("recovered %+v", e)
	}
}

// TestFIFORolloutIsRefused: a named pipe where a rollout should be is an
// error naming it, not a hang (reader, appender, reverse scan and index).
func TestFIFORolloutIsRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "rollout-2026-11-23T10-00-00-p.jsonl")
	must(t, syscall.Mkfifo(fifo, 0o600))
	if _, err := Read(fifo); err == nil || !strings.Contains(err.Error(), "named pipe") {
		t.Fatalf("Read: %v", err)
	}
	if _, err := OpenAppend(fifo); err == nil || !strings.Contains(err.Error(), "named pipe") {
		t.Fatalf("OpenAppend: %v", err)
	}
	if _, _, _, err := LastStatusChange(fifo); err == nil {
		t.Fatal("LastStatusChange read a FIFO")
	}
	home := t.TempDir()
	must(t, syscall.Mkfifo(filepath.Join(home, IndexFile), 0o600))
	if err := AppendIndex(home, IndexEntry{ID: "x", RolloutPath: "sessions/x"}); err == nil || !strings.Contains(err.Error(), "named pipe") {
		t.Fatalf("AppendIndex: %v", err)
	}
}

// TestOneWriterPerRollout: a second opener of a live rollout is refused
// with the holder named; once the holder is gone the lock is free.
func TestOneWriterPerRollout(t *testing.T) {
	r := newRec(t, t.TempDir(), "busy")
	_, err := OpenAppend(r.Path())
	var le *LockedError
	if !errors.As(err, &le) || le.Path != r.Path() {
		t.Fatalf("second writer: %v", err)
	}
	must(t, r.Close())
	r2, err := OpenAppend(r.Path())
	must(t, err)
	must(t, r2.Close())
}

// TestLockHolderIsNamed: the refusal names the other process's pid.
func TestLockHolderIsNamed(t *testing.T) {
	flock, err := exec.LookPath("flock")
	if err != nil {
		t.Skip("flock(1) not installed")
	}
	r := newRec(t, t.TempDir(), "held")
	must(t, r.Close())
	cmd := exec.Command(flock, "-x", r.Path(), "sh", "-c", "echo locked; read x")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // flock's child shares the lock
	stdin, err := cmd.StdinPipe()
	must(t, err)
	out, err := cmd.StdoutPipe()
	must(t, err)
	must(t, cmd.Start())
	defer func() { stdin.Close(); cmd.Wait() }()
	buf := make([]byte, 7)
	if _, err := out.Read(buf); err != nil {
		t.Fatal(err)
	}
	_, err = OpenAppend(r.Path())
	var le *LockedError
	if !errors.As(err, &le) || le.PID != cmd.Process.Pid || !strings.Contains(err.Error(), fmt.Sprintf("process %d", cmd.Process.Pid)) {
		t.Fatalf("got %v, want holder %d", err, cmd.Process.Pid)
	}
	// The TUI shows the refusal on one status line, cut at the terminal's
	// width, after "send: ": the holder must come before the long path
	// (issue 36: it was cut off at 160 columns).
	if i := strings.Index(err.Error(), fmt.Sprintf("process %d", cmd.Process.Pid)); i > 60 {
		t.Fatalf("the holder is named at column %d of %q: a status line cuts it off", i, err)
	}
	// The holder dies without unlocking (kill -9): its lock dies with it,
	// and the session is taken over without any stale-lock cleanup.
	// flock's child (sh) holds the lock too and is not ours to wait for:
	// poll until the kernel has ended it (bounded; this times nothing).
	must(t, syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL))
	_ = cmd.Wait()
	testkit.Eventually(t, "the rollout's lock to be free once its holder was killed", func() bool {
		r2, err := OpenAppend(r.Path())
		if err == nil {
			must(t, r2.Close())
			return true
		}
		if !errors.As(err, &le) {
			t.Fatalf("after the holder was killed: %v", err)
		}
		return false
	})
}

// TestDiskFullLeavesNoTornLine: on a full file system a failed append is
// cut back to the last whole line, reported with the count of lines not
// recorded, and written in order once space returns.
func TestDiskFullLeavesNoTornLine(t *testing.T) {
	dir := smallTmpfs(t, "64k")
	filler := filepath.Join(dir, "filler")
	must(t, os.WriteFile(filler, make([]byte, 16<<10), 0o600))
	r := newRec(t, dir, "full")
	big := strings.Repeat("x", 3000)
	var werr *WriteError
	appended := 0
	for i := 0; i < 100 && werr == nil; i++ {
		if err := r.AppendItem(protocol.UserMessage(big)); err != nil {
			if !errors.As(err, &werr) || !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("append: %v", err)
			}
			break
		}
		appended++
	}
	if werr == nil {
		t.Fatal("a 64k tmpfs never filled")
	}
	if r.Failed() == nil {
		t.Fatal("Failed() is nil after a failed write")
	}
	s, err := Read(r.Path())
	must(t, err)
	if len(s.Warnings) != 0 || len(s.Items) != appended {
		t.Fatalf("after ENOSPC: %d items (want %d), warnings %q", len(s.Items), appended, s.Warnings)
	}
	// Space comes back: the pending line is written with the next one.
	must(t, os.Remove(filler))
	must(t, r.Flush())
	if r.Failed() != nil {
		t.Fatalf("still failed: %v", r.Failed())
	}
	must(t, r.Close())
	s, err = Read(r.Path())
	must(t, err)
	if len(s.Warnings) != 0 || len(s.Items) != appended+1 {
		t.Fatalf("after space returned: %d items (want %d), warnings %q", len(s.Items), appended+1, s.Warnings)
	}
}

// smallTmpfs mounts a tmpfs of the given size on a temporary directory (a
// disk that can fill up), or skips where mounting is not permitted.
func smallTmpfs(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small tmpfs to fill (needs root and mount rights): %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", dir).Run() })
	return dir
}

// TestScanLinesAroundBlockEdges: lines of every length around the block
// size (and several long ones in a row, and a torn long last line) come out
// exactly as a plain split gives them.
func TestScanLinesAroundBlockEdges(t *testing.T) {
	for _, lens := range [][]int{
		{reverseBlock - 1, 3}, {reverseBlock, 3}, {reverseBlock + 1, 3},
		{5, reverseBlock*3 + 7, reverseBlock*2 + 1, 0, 9},
		{reverseBlock - 2, reverseBlock - 1, reverseBlock},
	} {
		for _, torn := range []bool{false, true} {
			var parts []string
			for i, n := range lens {
				parts = append(parts, strings.Repeat(string(rune('a'+i%26)), n))
			}
			content := strings.Join(parts, "\n")
			if !torn {
				content += "\n"
			}
			var got []string
			must(t, scanLines(strings.NewReader(content), func(_ int, b []byte) { got = append(got, string(b)) }))
			if strings.Join(got, "\n") != strings.Join(parts, "\n") || len(got) != len(parts) {
				t.Fatalf("lens %v torn %v: got %d lines", lens, torn, len(got))
			}
		}
	}
}
