package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
)

// The attack: `ln -s . link`, spawn with working_directory "link"
// (the same directory, so no approval), then repoint link to ../home. The
// child must stay where it was approved to run.
func TestSpawnWorkdirSymlinkRepointDoesNotMoveTheChild(t *testing.T) {
	repointed := make(chan struct{})
	env := newEnv(t, script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			switch tn.rounds {
			case 0:
				return calls(toolCall("s", "spawn_agent", map[string]any{"message": "x", "working_directory": "link"})), nil
			case 1:
				return calls(toolCall("w", "wait", map[string]any{"ids": []string{agentIDFrom(tn.output("s"))}})), nil
			}
			return text("done"), nil
		},
		"default": func(ctx context.Context, tn turn) (model.Response, error) {
			if tn.rounds == 0 {
				select {
				case <-repointed:
				case <-ctx.Done():
					return model.Response{}, ctx.Err()
				}
				return calls(toolCall("touch", "exec_command", map[string]any{"cmd": "touch pwned"})), nil
			}
			return text("child done"), nil
		},
	}, nil)
	link := filepath.Join(env.cwd, "link")
	if err := os.Symlink(".", link); err != nil {
		t.Fatal(err)
	}
	env.send("go")
	out := env.toolOutput("s")
	if out.IsError {
		t.Fatalf("spawn failed: %s", out.Output)
	}
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("..", "home"), link); err != nil {
		t.Fatal(err)
	}
	close(repointed)
	env.rootFinal(1)
	if cwd := env.e.thread(spawnedID(t, out.Output)).info().Cwd; cwd != env.cwd {
		t.Errorf("child cwd = %s, want %s", cwd, env.cwd)
	}
	if touch := env.toolOutput("touch"); touch.IsError || touch.ExitCode == nil || *touch.ExitCode != 0 {
		t.Fatalf("touch: %+v", touch)
	}
	if _, err := os.Stat(filepath.Join(env.home, "pwned")); err == nil {
		t.Error("the child wrote into ../home through the repointed link")
	}
	if _, err := os.Stat(filepath.Join(env.cwd, "pwned")); err != nil {
		t.Errorf("the child's file is not in its working directory: %v", err)
	}
	if n := len(env.all(func(ev protocol.Event) bool { return ev.Type == protocol.EventApprovalRequested })); n != 0 {
		t.Errorf("%d approvals for the same directory", n)
	}
}

// A directory approved by the user is pinned as resolved; if it is
// swapped for a symlink while the user decides, the spawn is refused.
func TestSpawnWorkdirSwappedDuringApprovalIsRefused(t *testing.T) {
	env := newEnv(t, script{"root": func(context.Context, turn) (model.Response, error) { return text("x"), nil }}, nil)
	sub := filepath.Join(env.cwd, "sub")
	wd, err := pinDir(env.cwd, "sub")
	if err != nil || wd.path != sub {
		t.Fatalf("pinDir = %+v, %v", wd, err)
	}
	if err := wd.recheck(); err != nil {
		t.Fatalf("unchanged dir: %v", err)
	}
	if err := os.Rename(sub, sub+".old"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(env.home, sub); err != nil {
		t.Fatal(err)
	}
	if err := wd.recheck(); err == nil {
		t.Error("a directory swapped for a symlink passed the re-check")
	}
	if err := os.Remove(sub); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := wd.recheck(); err == nil {
		t.Error("a directory replaced by another passed the re-check")
	}
}
