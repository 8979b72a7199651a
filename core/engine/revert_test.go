package engine

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/grovecli/grove/core/execenv"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
)

const revertBase = "package f\n\nfunc a() int {\n\treturn 1\n}\n\nfunc c() int {\n\treturn 3\n}\n"

const revertPatchText = `*** Begin Patch
*** Update File: f.go
@@ func a() int {
-	return 1
+	return 10
@@ func c() int {
-	return 3
+	return 30
*** End Patch`

// patchingRoot patches f.go in its first turn and records every request
// of later turns.
func patchingRoot(reqs *[]model.Request, mu *sync.Mutex) script {
	return script{"root": func(_ context.Context, tn turn) (model.Response, error) {
		if tn.prompt == "patch" {
			if tn.rounds == 0 {
				return calls(toolCall("p1", "apply_patch", map[string]string{"input": revertPatchText})), nil
			}
			return text("patched"), nil
		}
		mu.Lock()
		*reqs = append(*reqs, tn.req)
		mu.Unlock()
		return text("ok"), nil
	}}
}

func revertOp(root protocol.ThreadID, hunks ...protocol.HunkRef) protocol.Op {
	return protocol.Op{Type: protocol.OpRevertPatch, ThreadID: root, Revert: &protocol.PatchRevert{CallID: "p1", Patch: revertPatchText, Hunks: hunks}}
}

// TestRevertHunkWritesRecordsAndTellsTheModel: reverting the second hunk
// of an applied patch restores just its lines on disk, publishes and
// records patch_reverted, and the root's next request carries a notice
// naming the file; a hunk the file no longer matches writes nothing.
func TestRevertHunkWritesRecordsAndTellsTheModel(t *testing.T) {
	var mu sync.Mutex
	var reqs []model.Request
	env := newEnv(t, patchingRoot(&reqs, &mu), nil)
	f := filepath.Join(env.cwd, "f.go")
	if err := os.WriteFile(f, []byte(revertBase), 0o644); err != nil {
		t.Fatal(err)
	}
	env.send("patch")
	env.rootFinal(1)
	if out := env.toolOutput("p1"); out.IsError {
		t.Fatalf("apply_patch failed: %s", out.Output)
	}
	if err := env.e.Submit(revertOp(env.root, protocol.HunkRef{File: 0, Hunk: 1})); err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(revertBase, "return 1", "return 10", 1)
	if b, _ := os.ReadFile(f); string(b) != want {
		t.Fatalf("after the revert f.go is\n%s\nwant\n%s", b, want)
	}
	ev := env.waitFor("patch_reverted", func(ev protocol.Event) bool { return ev.Type == protocol.EventPatchReverted })
	if ev.Revert.CallID != "p1" || len(ev.Revert.Files) != 1 || ev.Revert.Files[0] != "f.go" {
		t.Fatalf("patch_reverted: %+v", ev.Revert)
	}

	// Reverting it again: its lines are gone, nothing is written.
	err := env.e.Submit(revertOp(env.root, protocol.HunkRef{File: 0, Hunk: 1}))
	if err == nil || !strings.Contains(err.Error(), "nothing was reverted") {
		t.Fatalf("second revert: %v", err)
	}
	if b, _ := os.ReadFile(f); string(b) != want {
		t.Fatalf("a refused revert changed f.go:\n%s", b)
	}

	env.send("next")
	env.rootFinal(2)
	mu.Lock()
	defer mu.Unlock()
	var notice string
	for _, it := range reqs[0].Items {
		if it.IsGroveNotice() && strings.Contains(it.Content, "reverted") {
			notice = it.Content
		}
	}
	if !strings.Contains(notice, "f.go") || !strings.Contains(notice, "1 hunk") {
		t.Fatalf("the next request has no revert notice naming f.go; notice %q", notice)
	}
	rollout, err := os.ReadFile(env.e.Threads()[0].RolloutPath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(rollout), `"patch_reverted"`) || !strings.Contains(string(rollout), "user reverted 1 hunk") {
		t.Fatal("the rollout has no patch_reverted event or no notice")
	}
}

// TestRevertOutsideTheWritableRootsWritesNothing: a revert goes through
// the sandbox's writable roots like apply_patch, so an op naming a file
// outside the workspace is refused and the file stays.
func TestRevertOutsideTheWritableRootsWritesNothing(t *testing.T) {
	env := newEnv(t, script{}, func(o *Options) {
		o.Sandbox = protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite, ExcludeSlashTmp: true}
	})
	outside := filepath.Join(t.TempDir(), "precious.txt")
	if err := os.WriteFile(outside, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The temp dir is a writable root: move it away from the file.
	tmp := filepath.Join(env.home, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", tmp)
	op := protocol.Op{Type: protocol.OpRevertPatch, ThreadID: env.root, Revert: &protocol.PatchRevert{
		CallID: "x", Patch: "*** Begin Patch\n*** Add File: " + outside + "\n+keep\n*** End Patch", Hunks: []protocol.HunkRef{{}},
	}}
	err := env.e.Submit(op)
	if err == nil || !strings.Contains(err.Error(), "outside the writable roots") || !strings.Contains(err.Error(), "nothing was written") {
		t.Fatalf("revert outside the workspace: %v", err)
	}
	if _, err := os.Stat(outside); err != nil {
		t.Fatalf("the outside file is gone: %v", err)
	}
	if evs := env.all(func(ev protocol.Event) bool { return ev.Type == protocol.EventPatchReverted }); len(evs) != 0 {
		t.Fatalf("a refused revert published %d patch_reverted events", len(evs))
	}
}

// pipeTransport is an in-process exec-server connection.
type pipeTransport struct {
	io.Reader
	io.WriteCloser
}

func (pipeTransport) Why() string { return "" }

// inProcessHost is a host whose exec-server runs in this process on
// pipes: the Remote backend and its wire protocol, without ssh. The
// server stops when the Remote closes its connection; wait waits for it.
func inProcessHost(t *testing.T) (b *execenv.Remote, wait func()) {
	var wg sync.WaitGroup
	dial := func(context.Context) (execenv.Transport, error) {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := execenv.Serve(context.Background(), execenv.NewLocal(), inR, outW); err != nil {
				t.Errorf("exec-server: %v", err)
			}
			_ = outW.Close()
		}()
		return pipeTransport{Reader: outR, WriteCloser: inW}, nil
	}
	return execenv.NewRemote("box", dial), wg.Wait
}

// TestRevertOnAHostGoesThroughItsBackend: an agent whose tools run on a
// host has its patch reverted there, in the host's workspace, through
// the same Remote backend apply_patch used (the local cwd has no such file).
func TestRevertOnAHostGoesThroughItsBackend(t *testing.T) {
	var mu sync.Mutex
	var reqs []model.Request
	ws := t.TempDir()
	remote, wait := inProcessHost(t)
	// Registered before the engine's: cleanups run last first, so the
	// host goes after the engine has shut down.
	t.Cleanup(func() { _ = remote.Close(); wait() })
	env := newEnv(t, patchingRoot(&reqs, &mu), func(o *Options) {
		o.Exec, o.HostName, o.Workspace = remote, "box", ws
	})
	f := filepath.Join(ws, "f.go")
	if err := os.WriteFile(f, []byte(revertBase), 0o644); err != nil {
		t.Fatal(err)
	}
	env.send("patch")
	env.rootFinal(1)
	if out := env.toolOutput("p1"); out.IsError {
		t.Fatalf("apply_patch on the host failed: %s", out.Output)
	}
	if err := env.e.Submit(revertOp(env.root, protocol.HunkRef{File: 0, Hunk: 0}, protocol.HunkRef{File: 0, Hunk: 1})); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(f); string(b) != revertBase {
		t.Fatalf("the host's f.go after reverting both hunks:\n%s", b)
	}
	if _, err := os.Stat(filepath.Join(env.cwd, "f.go")); !os.IsNotExist(err) {
		t.Fatalf("the revert touched the local cwd: %v", err)
	}
}

// TestRevertDuringATurnWaitsForTheNextRequest: a revert while the root's
// turn runs is told to the model at its next request of that turn, after
// the outputs of the calls in flight (never between a call and its output).
func TestRevertDuringATurnWaitsForTheNextRequest(t *testing.T) {
	inModel, release := make(chan struct{}), make(chan struct{})
	var mu sync.Mutex
	var seen []model.Request
	env := newEnv(t, script{"root": func(ctx context.Context, tn turn) (model.Response, error) {
		if tn.prompt == "patch" {
			if tn.rounds == 0 {
				return calls(toolCall("p1", "apply_patch", map[string]string{"input": revertPatchText})), nil
			}
			return text("patched"), nil
		}
		mu.Lock()
		seen = append(seen, tn.req)
		first := len(seen) == 1
		mu.Unlock()
		// (The harness reads the notice, a user-role item, as a new prompt:
		// count requests, not rounds.)
		if first {
			close(inModel)
			select {
			case <-release:
			case <-ctx.Done():
				return model.Response{}, ctx.Err()
			}
			return calls(toolCall("l1", "list_dir", map[string]any{"path": "."})), nil
		}
		return text("ok"), nil
	}}, nil)
	if err := os.WriteFile(filepath.Join(env.cwd, "f.go"), []byte(revertBase), 0o644); err != nil {
		t.Fatal(err)
	}
	env.send("patch")
	env.rootFinal(1)
	env.send("look around")
	<-inModel
	if err := env.e.Submit(revertOp(env.root, protocol.HunkRef{File: 0, Hunk: 0})); err != nil {
		t.Fatal(err)
	}
	close(release)
	env.rootFinal(2)
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 {
		t.Fatalf("%d requests in the second turn, want 2", len(seen))
	}
	has := func(items []protocol.Item) int {
		for i, it := range items {
			if it.IsGroveNotice() && strings.Contains(it.Content, "user reverted 1 hunk") {
				return i
			}
		}
		return -1
	}
	if has(seen[0].Items) >= 0 {
		t.Fatal("the request already sent had the notice")
	}
	items := seen[1].Items
	at := has(items)
	if at < 0 {
		t.Fatal("the next request of the turn has no revert notice")
	}
	for i, it := range items[:at] {
		if it.Type == protocol.ItemFunctionCall && it.CallID == "l1" {
			found := false
			for _, o := range items[i+1 : at] {
				found = found || o.Type == protocol.ItemFunctionCallOutput && o.CallID == "l1"
			}
			if !found {
				t.Fatal("the notice came between list_dir's call and its output")
			}
		}
	}
}

// TestRevertOfAClosedAgentIsRecordedInItsRollout: a worker patched and was
// closed; reverting its hunk still writes patch_reverted and its notice to
// the worker's rollout (reopened for the write), and the root's next
// request names the worker.
func TestRevertOfAClosedAgentIsRecordedInItsRollout(t *testing.T) {
	var mu sync.Mutex
	var rootReqs []model.Request
	env := newEnv(t, script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			if tn.prompt != "start" {
				mu.Lock()
				rootReqs = append(rootReqs, tn.req)
				mu.Unlock()
				return text("noted"), nil
			}
			switch tn.rounds {
			case 0:
				return calls(toolCall("sp", "spawn_agent", map[string]any{"agent_type": "worker", "message": "patch f.go"})), nil
			case 1:
				return calls(toolCall("w", "wait", map[string]any{"ids": []string{agentIDFrom(tn.output("sp"))}})), nil
			case 2:
				return calls(toolCall("cl", "close_agent", map[string]any{"id": agentIDFrom(tn.output("sp"))})), nil
			}
			return text("all done"), nil
		},
		"worker": func(_ context.Context, tn turn) (model.Response, error) {
			if tn.rounds == 0 {
				return calls(toolCall("p1", "apply_patch", map[string]string{"input": revertPatchText})), nil
			}
			return text("patched"), nil
		},
	}, nil)
	if err := os.WriteFile(filepath.Join(env.cwd, "f.go"), []byte(revertBase), 0o644); err != nil {
		t.Fatal(err)
	}
	env.send("start")
	env.rootFinal(1)
	child := spawnedID(t, env.toolOutput("sp").Output)
	env.waitFor("the worker closed", func(ev protocol.Event) bool { return ev.ThreadID == child && ev.Type == protocol.EventThreadClosed })
	if err := env.e.Submit(revertOp(child, protocol.HunkRef{File: 0, Hunk: 0})); err != nil {
		t.Fatal(err)
	}
	var path string
	for _, ti := range env.e.Threads() {
		if ti.ID == child {
			path = ti.RolloutPath
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"patch_reverted"`) || !strings.Contains(string(b), "The user reverted 1 hunk(s) of your apply_patch call p1") {
		t.Fatalf("the closed worker's rollout lacks the revert:\n%s", b)
	}
	env.send("what changed?")
	env.rootFinal(2)
	mu.Lock()
	defer mu.Unlock()
	found := false
	for _, it := range rootReqs[0].Items {
		found = found || it.IsGroveNotice() && strings.Contains(it.Content, "worker") && strings.Contains(it.Content, "root > worker") && strings.Contains(it.Content, "f.go")
	}
	if !found {
		t.Fatal("the root's next request does not name the worker's reverted change")
	}
}

// TestRevertKilledMidWriteTellsTheResumedModel (issue 36.5): the revert's
// intent is on disk before the file changes, so a grove killed between
// the two (the rollout as it was then; f.go already reverted) resumes
// with a notice telling the model the revert's outcome is unknown, once.
func TestRevertKilledMidWriteTellsTheResumedModel(t *testing.T) {
	var mu sync.Mutex
	var reqs []model.Request
	env := newEnv(t, patchingRoot(&reqs, &mu), nil)
	f := filepath.Join(env.cwd, "f.go")
	if err := os.WriteFile(f, []byte(revertBase), 0o644); err != nil {
		t.Fatal(err)
	}
	env.send("patch")
	env.rootFinal(1)
	var atWrite map[string][]byte
	revertWriteHook = func() { atWrite = snapshotDir(t, env.home) } // kill -9 here
	defer func() { revertWriteHook = nil }()
	if err := env.e.Submit(revertOp(env.root, protocol.HunkRef{File: 0, Hunk: 1})); err != nil {
		t.Fatal(err)
	}
	if err := env.e.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	restoreDir(t, env.home, atWrite)

	_, env2 := env.resumeInNewEngine()
	env2.send("next")
	env2.rootFinal(1)
	mu.Lock()
	var notices []string
	for _, it := range reqs[len(reqs)-1].Items {
		if it.IsGroveNotice() && strings.Contains(it.Content, "reverting") {
			notices = append(notices, it.Content)
		}
	}
	mu.Unlock()
	if len(notices) != 1 || !strings.Contains(notices[0], "whether the revert reached the disk is unknown") || !strings.Contains(notices[0], "f.go") {
		t.Fatalf("the resumed model's notices about the revert: %q", notices)
	}
}
