package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/grovecli/grove/core/execenv"
	"github.com/grovecli/grove/core/tools/patch"
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

// A user may revert hunks an agent's apply_patch wrote (the TUI's diff
// review). The reverse hunks are written the way apply_patch writes: by
// the agent's own backend (this machine or its SSH host), beneath the
// sandbox's writable roots, atomically. Nothing is written unless every
// reversed hunk still matches its file exactly once.

// revertTimeout bounds a revert on a remote host that stopped answering.
const revertTimeout = 30 * time.Second

// maxRevertRead is the largest file a revert reads to check its hunks.
const maxRevertRead = 32 << 20

// revertPatch applies OpRevertPatch for thread t, which made the call.
func (e *Engine) revertPatch(t *Thread, rev *protocol.PatchRevert) error {
	if rev == nil || rev.Patch == "" || len(rev.Hunks) == 0 {
		return errors.New("revert_patch: the op names no patch or no hunks")
	}
	p, err := patch.Parse(rev.Patch)
	if err != nil {
		return fmt.Errorf("revert_patch of call %s: %w", rev.CallID, err)
	}
	refs := make([]patch.Ref, len(rev.Hunks))
	for i, h := range rev.Hunks {
		refs[i] = patch.Ref{File: h.File, Hunk: h.Hunk}
	}
	undo, err := patch.Reverse(p, refs)
	if err != nil {
		return fmt.Errorf("revert: %w", err)
	}
	backend, cwd, err := t.fileBackend()
	if err != nil {
		return fmt.Errorf("revert: %w", err)
	}
	ctx, cancel := context.WithTimeout(e.ctx, revertTimeout)
	defer cancel()
	if err := undo.Check(func(path string) (string, error) {
		return readAll(ctx, backend, patch.Resolve(cwd, path))
	}); err != nil {
		return fmt.Errorf("revert: %w", err)
	}
	t.mu.Lock()
	policy := t.sandbox
	t.mu.Unlock()
	// The intent is on disk before the files change: a grove killed from
	// here on leaves a record a resume turns into a notice to the model.
	intent := *rev
	intent.State = protocol.RevertStarted
	if err := t.recordRevert(intent); err != nil {
		return fmt.Errorf("revert: the session cannot record it (%w); nothing was written", err)
	}
	if revertWriteHook != nil {
		revertWriteHook()
	}
	res, err := backend.ApplyPatch(ctx, execenv.PatchRequest{Cwd: cwd, Input: patch.Format(undo.Patch), Policy: policy, Apply: true})
	if err == nil && !res.Applied {
		err = fmt.Errorf("refused: %s", strings.Join(res.Outside, "; "))
	}
	if err != nil {
		failed := *rev
		failed.State = protocol.RevertFailed
		if rerr := t.recordRevert(failed); rerr != nil {
			e.warnOnce(t.id, "rollout", rerr)
		}
		return fmt.Errorf("revert: %w; nothing was written", err)
	}
	done := *rev
	done.Files = res.Files
	ev := e.bus.Publish(protocol.NewEvent(t.id, "", protocol.PatchRevertedMsg{Revert: done}))
	if err := t.recordEvenClosed(func(r *rollout.Recorder) error { return r.AppendEvent(ev) }); err != nil {
		e.warnOnce(t.id, "rollout", err)
	}
	e.tellReverted(t, done)
	return nil
}

// revertWriteHook, when set (tests), runs between the recorded intent and
// the write: where a kill -9 leaves the intent alone.
var revertWriteHook func()

// recordRevert writes a revert's rollout-only state line (intent, failure)
// and flushes it.
func (t *Thread) recordRevert(rev protocol.PatchRevert) error {
	ev := protocol.NewEvent(t.id, "", protocol.PatchRevertedMsg{Revert: rev})
	ev.Timestamp = time.Now()
	return t.recordEvenClosed(func(r *rollout.Recorder) error { return r.AppendEvent(ev) })
}

// recordEvenClosed writes a line to the thread's rollout and flushes it:
// through its recorder while it is open, else (a closed agent, whose
// changes may still be reviewed) by reopening its file for this write. A
// resume of that agent at the same instant may find the file locked by
// this write and fail; it can be retried.
func (t *Thread) recordEvenClosed(write func(*rollout.Recorder) error) error {
	if rec := t.recorder(); rec != nil {
		if err := write(rec); err != nil {
			return err
		}
		return rec.Flush()
	}
	t.mu.Lock()
	path := t.life.rolloutPath
	t.mu.Unlock()
	if path == "" {
		return nil // an ephemeral session records nothing
	}
	rec, err := rollout.OpenAppend(path)
	if err != nil {
		return fmt.Errorf("record in a closed agent's rollout: %w", err)
	}
	if err := write(rec); err != nil {
		_ = rec.Close()
		return fmt.Errorf("record in a closed agent's rollout: %w", err)
	}
	return rec.Close()
}

// fileBackend is where t's apply_patch writes and the working directory
// there, as runTool sets them up.
func (t *Thread) fileBackend() (execenv.Backend, string, error) {
	t.mu.Lock()
	cwd := t.cwd
	t.mu.Unlock()
	if t.host == "" {
		return execenv.NewLocal(), cwd, nil
	}
	b, ws, err := t.e.hostBackend(t.host)
	if err != nil {
		return nil, "", fmt.Errorf("this agent's files are on host %s: %w", t.host, err)
	}
	return b, hostPath(t.e.opts.Cwd, ws, cwd), nil
}

// readAll reads a file through a backend, refusing huge ones.
func readAll(ctx context.Context, b execenv.FileSystem, path string) (string, error) {
	rc, err := b.Open(ctx, path)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, maxRevertRead+1))
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	if len(data) > maxRevertRead {
		return "", fmt.Errorf("%s is larger than %d MiB", path, maxRevertRead>>20)
	}
	return string(data), nil
}

// tellReverted tells the agent that made the change, and the root, before
// their next model request: their picture of those files is out of date,
// and a model that is not told would build on lines that are gone.
func (e *Engine) tellReverted(owner *Thread, rev protocol.PatchRevert) {
	files := strings.Join(rev.Files, ", ")
	n := len(rev.Hunks)
	own := fmt.Sprintf("[grove] The user reverted %d hunk(s) of your apply_patch call %s, in %s: those changes are no longer on disk. Re-read these files before you edit them again, and do not redo the reverted changes unless the user asks.", n, rev.CallID, files)
	owner.notify(protocol.GroveNotice(own))
	root := e.tree.rootThread()
	if root != nil && root != owner {
		msg := fmt.Sprintf("[grove] The user reverted %d hunk(s) that %s (%s) wrote with apply_patch, in %s: those changes are no longer on disk. Re-read these files before relying on them.", n, owner.label(), strings.Join(e.chain(owner), " > "), files)
		root.notify(protocol.GroveNotice(msg))
	}
}

// notify puts a notice from grove into the thread's history: at once when
// no turn runs (so it is recorded and survives a resume), else before the
// turn's next model request, where queued input goes too (never between a
// tool call and its output).
func (t *Thread) notify(it protocol.Item) {
	t.mu.Lock()
	if t.turn.running {
		t.turn.notices = append(t.turn.notices, it)
		t.mu.Unlock()
		return
	}
	t.budget.append(it)
	t.mu.Unlock()
	if err := t.recordEvenClosed(func(r *rollout.Recorder) error { return r.AppendItem(it) }); err != nil {
		t.e.warnOnce(t.id, "rollout", err)
	}
}

// takeNotices returns and clears the notices waiting for the next request.
func (t *Thread) takeNotices() []protocol.Item {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.turn.takeNotices()
}
