package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/grovecli/grove/core/model/modeltest"
)

// `grove exec --host box` runs the root's tools on the host, in its
// workspace; the model and the rollout stay here.
func TestExecOnSSHHost(t *testing.T) {
	needBinary(t)
	f := startSSHD(t)
	hostPolicy(t)
	e := newRTEnv(t)
	remote := filepath.Join(e.base, "remote-ws")
	writeFile(t, filepath.Join(remote, "there.txt"), "only on the host\n")
	writeFile(t, filepath.Join(e.groveHome, "config.toml"), f.hostTOML("box", remote))
	var resumed atomic.Bool
	script := map[string][]rtStep{"root": {
		sh("c1", "pwd; echo made-on-host > made.txt"),
		calls(call("c2", "apply_patch", map[string]any{"input": "*** Begin Patch\n*** Add File: patched.txt\n+by patch\n*** End Patch"})),
		calls(call("c3", "read_file", map[string]any{"path": "there.txt"}), call("c4", "list_dir", map[string]any{"path": "."})),
		calls(call("c5", "grep_files", map[string]any{"pattern": "by patch"})),
		func(*hostile) []modeltest.ToolCall { // only in the resumed run
			if !resumed.Load() {
				return nil
			}
			return []modeltest.ToolCall{call("c6", "exec_command", map[string]any{"cmd": "pwd; echo again > resumed.txt"})}
		},
	}}
	e.run(t, script, nil, "--host", "box")
	if e.code != 0 {
		log, _ := os.ReadFile(filepath.Join(e.groveHome, "log", "grove.log"))
		t.Fatalf("exit %d\nstderr: %s\nlog: %s\nmodel saw: %v", e.code, e.stderr, log, e.h.outputs)
	}
	if out := e.h.out("c1"); !strings.Contains(out, "Process exited with code 0") || !strings.Contains(out, remote) {
		t.Fatalf("exec_command did not run in the host's workspace: %q", out)
	}
	for _, name := range []string{"made.txt", "patched.txt"} {
		if _, err := os.Stat(filepath.Join(remote, name)); err != nil {
			t.Errorf("%s not written in the host's workspace: %v", name, err)
		}
		if _, err := os.Stat(filepath.Join(e.ws, name)); err == nil {
			t.Errorf("%s was written in the local cwd", name)
		}
	}
	if out := e.h.out("c3"); !strings.Contains(out, "only on the host") {
		t.Errorf("read_file = %q", out)
	}
	if out := e.h.out("c4"); !strings.Contains(out, "Absolute path: "+remote) || !strings.Contains(out, "there.txt") {
		t.Errorf("list_dir = %q", out)
	}
	if out := e.h.out("c5"); !strings.Contains(out, "patched.txt:1: by patch") {
		t.Errorf("grep_files = %q", out)
	}

	// Resumed without --host, the session runs on the host it was
	// recorded with.
	m := regexp.MustCompile(`"thread_id":"([^"]+)"`).FindStringSubmatch(e.stdout)
	if m == nil {
		t.Fatalf("no thread id in the events: %s", e.stdout)
	}
	resumed.Store(true)
	e.run(t, script, nil, "--resume", m[1])
	if e.code != 0 {
		t.Fatalf("resume: exit %d\nstderr: %s", e.code, e.stderr)
	}
	if out := e.h.out("c6"); !strings.Contains(out, remote) {
		t.Fatalf("the resumed session did not run on its host: %q", out)
	}
	if _, err := os.Stat(filepath.Join(remote, "resumed.txt")); err != nil {
		t.Fatalf("resumed.txt not on the host: %v", err)
	}
}

// A host that cannot be reached fails `grove exec` before the first model
// call, naming the host and what ssh said.
func TestExecUnreachableHostFailsFast(t *testing.T) {
	needBinary(t)
	f := startSSHD(t)
	e := newRTEnv(t)
	dead := strings.Replace(f.hostTOML("dead", "/srv/x"), `ssh = "grovetest"`, `ssh = "ssh://127.0.0.1:1"`, 1)
	writeFile(t, filepath.Join(e.groveHome, "config.toml"), dead)
	begin := time.Now()
	e.run(t, map[string][]rtStep{"root": {sh("c1", "true")}}, nil, "--host", "dead")
	if e.code == 0 || !strings.Contains(e.stderr, "host dead") || !strings.Contains(e.stderr, "Connection refused") {
		t.Fatalf("exit %d, stderr %q", e.code, e.stderr)
	}
	if n := len(e.h.srv.Requests()); n != 0 {
		t.Fatalf("%d model calls before the host check", n)
	}
	t.Logf("failed after %v: %s", time.Since(begin), strings.TrimSpace(e.stderr))

	// A host that is not configured is refused, never run locally.
	e.run(t, map[string][]rtStep{"root": {sh("c1", "true")}}, nil, "--host", "nosuch")
	if e.code == 0 || !strings.Contains(e.stderr, `host "nosuch" is not configured`) {
		t.Fatalf("unknown host: exit %d, stderr %q", e.code, e.stderr)
	}
}

// A template saying `host: box` runs its agents' tools on the host while
// the root's stay here; a template naming an unconfigured host is refused.
func TestTemplateHostRunsSubAgentThere(t *testing.T) {
	needBinary(t)
	f := startSSHD(t)
	hostPolicy(t)
	e := newRTEnv(t)
	remote := filepath.Join(e.base, "remote-ws")
	if err := os.MkdirAll(remote, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(e.groveHome, "config.toml"), f.hostTOML("box", remote))
	writeFile(t, filepath.Join(e.groveHome, "agents", "builder.md"), "---\ndescription: builds on the box\nhost: box\n---\nbuild\n")
	writeFile(t, filepath.Join(e.groveHome, "agents", "lost.md"), "---\ndescription: names no real host\nhost: nowhere\n---\nx\n")
	e.run(t, map[string][]rtStep{
		"root": {
			sh("r1", "pwd"),
			calls(call("sp", "spawn_agent", map[string]any{"message": "script:child", "agent_type": "builder"}),
				call("sp-lost", "spawn_agent", map[string]any{"message": "script:lost", "agent_type": "lost"})),
			func(h *hostile) []modeltest.ToolCall {
				if id := agentIDOf(h.out("sp")); id != "" {
					return []modeltest.ToolCall{call("w", "wait", map[string]any{"ids": []string{id}, "timeout_ms": 60000})}
				}
				return nil
			},
		},
		"child": {sh("c1", "pwd; echo child > child.txt")},
	}, nil)
	if e.code != 0 {
		t.Fatalf("exit %d\nstderr: %s", e.code, e.stderr)
	}
	if out := e.h.out("r1"); !strings.Contains(out, e.ws) {
		t.Errorf("the root did not run locally: %q", out)
	}
	if out := e.h.out("c1"); !strings.Contains(out, remote) {
		t.Errorf("the builder did not run on the host: %q", out)
	}
	if _, err := os.Stat(filepath.Join(remote, "child.txt")); err != nil {
		t.Errorf("child.txt not on the host: %v", err)
	}
	if out := e.h.out("sp-lost"); !strings.Contains(out, `host "nowhere" is not configured`) {
		t.Errorf("a template naming an unconfigured host was not refused: %q", out)
	}
	if !strings.Contains(e.stdout, `"host":"box"`) {
		t.Errorf("no thread announced as running on box in the events")
	}
}
