package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/execenv"
)

// endingBackend runs no command: its process ends with code, and the
// turn's context ends as it does (grove exec shutting down while a
// sub-agent's command finishes: seed 000's exec clause, docs/seeds.md
// 000-61).
type endingBackend struct {
	execenv.Local
	code    int
	cancel  context.CancelFunc
	started bool
}

func (b *endingBackend) Start(context.Context, execenv.ExecRequest) (execenv.Process, error) {
	b.started = true
	return endingProcess{b}, nil
}

type endingProcess struct{ b *endingBackend }

func (p endingProcess) Wait() (int, error) {
	p.b.cancel()
	return p.b.code, nil
}

// A command that exited by itself keeps its exit code when the turn ends
// at the same moment; only one that died of a signal then was stopped.
func TestExecEndingWithTheTurnKeepsItsRealExitCode(t *testing.T) {
	for _, c := range []struct {
		code             int
		killed, errorful bool
	}{
		{code: 0}, {code: 3}, {code: 143, killed: true, errorful: true}, {code: 137, killed: true, errorful: true},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		b := &endingBackend{code: c.code, cancel: cancel}
		env := testEnv(t)
		env.Exec = b
		res := coreRegistry(t).Run(ctx, env, "exec_command", []byte(`{"cmd":"true"}`))
		cancel()
		if res.ExitCode == nil || *res.ExitCode != c.code || res.IsError != c.errorful {
			t.Errorf("code %d: exit %v, is_error %v: %s", c.code, res.ExitCode, res.IsError, res.Output)
		}
		if got := strings.Contains(res.Output, "interrupted and killed"); got != c.killed {
			t.Errorf("code %d: reported killed=%v, want %v: %s", c.code, got, c.killed, res.Output)
		}
	}
}

// A command whose turn ended before it started is not started.
func TestExecAfterTheTurnEndedIsNotStarted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b := &endingBackend{cancel: cancel}
	env := testEnv(t)
	env.Exec = b
	res := coreRegistry(t).Run(ctx, env, "exec_command", []byte(`{"cmd":"true"}`))
	if b.started || !res.IsError || res.ExitCode != nil || !strings.Contains(res.Output, "command was not run: the turn was interrupted or grove was shutting down before it started") {
		t.Fatalf("started %v: %+v", b.started, res)
	}
}
