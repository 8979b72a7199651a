package tools

import (
	"strings"
	"testing"
	"time"
)

// A background child must not hold the result hostage: the group is
// killed as soon as the shell exits (it used to wait for WaitDelay).
func TestExecBackgroundChildDoesNotDelay(t *testing.T) {
	r := coreRegistry(t)
	env := testEnv(t)
	start := time.Now()
	res := run(t, r, env, "exec_command", map[string]any{"cmd": "sleep 30 & echo started"})
	if res.IsError || !strings.Contains(res.Output, "started") || *res.ExitCode != 0 {
		t.Fatalf("background: %+v", res)
	}
	// Bounds a hang (30 s sleep), measures nothing finer.
	if time.Since(start) > 20*time.Second {
		t.Fatal("waited for the background child")
	}
}

func TestExecSignalExitCode(t *testing.T) {
	r := coreRegistry(t)
	env := testEnv(t)
	res := run(t, r, env, "exec_command", map[string]any{"cmd": "kill -SEGV $$"})
	if res.ExitCode == nil || *res.ExitCode != 139 || !strings.Contains(res.Output, "Process exited with code 139") {
		t.Fatalf("segfault exit: %+v", res)
	}
}
