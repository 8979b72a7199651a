package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/grovecli/grove/core/model/modeltest"
)

// patch is a step applying one patch.
func patch(id, body string) rtStep {
	return calls(call(id, "apply_patch", map[string]any{"input": "*** Begin Patch\n" + body + "*** End Patch\n"}))
}

// TestRedteamApplyPatchPaths: apply_patch writes only inside the writable
// roots, whatever the path says.
func TestRedteamApplyPatchPaths(t *testing.T) {
	victimUntouched := func(t *testing.T, e *rtEnv) {
		t.Helper()
		mustNotExist(t, e, filepath.Join(e.victim, "pwned"))
		mustHold(t, e, filepath.Join(e.victim, "secret"), "victim-original\n")
		mustHold(t, e, filepath.Join(e.ws, "f.txt"), "line1\nline2\n")
	}
	linkTo := func(target, name string) func(t *testing.T, e *rtEnv) {
		return func(t *testing.T, e *rtEnv) {
			if err := os.Symlink(strings.ReplaceAll(target, "$V", e.victim), filepath.Join(e.ws, name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	runAttacks(t, []rtAttack{
		{name: "dotdot", root: func(e *rtEnv) []rtStep {
			return []rtStep{patch("p", "*** Add File: ../victim/pwned\n+x\n")}
		}, check: victimUntouched},
		{name: "absolute", root: func(e *rtEnv) []rtStep {
			return []rtStep{patch("p", "*** Add File: "+e.victim+"/pwned\n+x\n")}
		}, check: victimUntouched},
		{name: "symlinked-dir", setup: linkTo("$V", "lnk"), root: func(e *rtEnv) []rtStep {
			return []rtStep{patch("p", "*** Add File: lnk/pwned\n+x\n")}
		}, check: victimUntouched},
		{name: "dangling-link", setup: linkTo("$V/pwned", "dl"), root: func(e *rtEnv) []rtStep {
			return []rtStep{patch("p", "*** Add File: dl\n+x\n")}
		}, check: victimUntouched},
		{name: "update-through-file-link", setup: linkTo("$V/secret", "sl"), root: func(e *rtEnv) []rtStep {
			return []rtStep{patch("p", "*** Update File: sl\n@@\n-victim-original\n+owned\n")}
		}, check: victimUntouched},
		{name: "move-to-outside", root: func(e *rtEnv) []rtStep {
			return []rtStep{patch("p", "*** Update File: f.txt\n*** Move to: ../victim/pwned\n@@\n line1\n-line2\n+owned\n")}
		}, check: victimUntouched},
		{name: "move-to-through-link", setup: linkTo("$V", "lnk"), root: func(e *rtEnv) []rtStep {
			return []rtStep{patch("p", "*** Update File: f.txt\n*** Move to: lnk/pwned\n@@\n line1\n-line2\n+owned\n")}
		}, check: victimUntouched},
		{name: "delete-outside", root: func(e *rtEnv) []rtStep {
			return []rtStep{patch("p", "*** Delete File: ../victim/secret\n")}
		}, check: victimUntouched},
		{name: "delete-through-link", setup: linkTo("$V", "lnk"), root: func(e *rtEnv) []rtStep {
			return []rtStep{patch("p", "*** Delete File: lnk/secret\n")}
		}, check: victimUntouched},
		{name: "proc-self-cwd", root: func(e *rtEnv) []rtStep {
			// grove's process directory is the victim.
			return []rtStep{patch("p", "*** Add File: /proc/self/cwd/pwned\n+x\n")}
		}, check: victimUntouched},
		{name: "nul-in-path", root: func(e *rtEnv) []rtStep {
			return []rtStep{patch("p", "*** Add File: ok\x00/../../victim/pwned\n+x\n")}
		}, check: victimUntouched},
		{name: "backslash-and-unicode", root: func(e *rtEnv) []rtStep {
			return []rtStep{patch("p", "*** Add File: ..\\victim\\pwned\n+x\n*** Add File: ..\u2215victim\u2215pwned\n+x\n*** Add File: \u202e..\uff0fvictim/pwned\n+x\n")}
		}, check: victimUntouched},
		{name: "long-path", root: func(e *rtEnv) []rtStep {
			return []rtStep{patch("p", "*** Add File: "+strings.Repeat("a/", 3000)+"../victim/pwned\n+x\n"), patch("q", "*** Add File: "+strings.Repeat("x", 100000)+"\n+x\n")}
		}, check: func(t *testing.T, e *rtEnv) {
			victimUntouched(t, e)
			if e.code != 0 {
				t.Errorf("a long path broke the session:\n%s", e.diag())
			}
		}},
		{name: "hard-link-made-in-sandbox", root: func(e *rtEnv) []rtStep {
			return []rtStep{sh("ln", "ln "+e.victim+"/secret hl; ls -li hl "+e.victim+"/secret"), patch("p", "*** Update File: hl\n@@\n-victim-original\n+owned\n"), sh("w", "echo owned >> hl")}
		}, check: victimUntouched},
		{name: "hard-link-pre-planted", setup: func(t *testing.T, e *rtEnv) {
			// A link that was already there (the sandbox refuses to make
			// one, see above): apply_patch must not write through it into
			// the outside file. (Commands can: Landlock judges the path.)
			if err := os.Link(filepath.Join(e.victim, "secret"), filepath.Join(e.ws, "hl")); err != nil {
				t.Skipf("hard link: %v", err)
			}
		}, root: func(e *rtEnv) []rtStep {
			return []rtStep{patch("p", "*** Update File: hl\n@@\n-victim-original\n+owned\n")}
		}, check: victimUntouched},
		{name: "read-only-sandbox", args: []string{"-s", "read-only"}, root: func(e *rtEnv) []rtStep {
			return []rtStep{patch("p", "*** Add File: inside\n+x\n*** Add File: ../victim/pwned\n+x\n")}
		}, check: func(t *testing.T, e *rtEnv) {
			victimUntouched(t, e)
			mustNotExist(t, e, filepath.Join(e.ws, "inside"))
		}},
	})
}

// TestRedteamApplyPatchSymlinkRace: while something else (the test, as a
// background process would) swaps a workspace directory for a symlink to
// the victim, a burst of patches writes into it: none may land outside.
func TestRedteamApplyPatchSymlinkRace(t *testing.T) {
	needBinary(t)
	e := newRTEnv(t)
	d := filepath.Join(e.ws, "d")
	if err := os.Mkdir(d, 0o755); err != nil {
		t.Fatal(err)
	}
	const n = 60
	var burst []modeltest.ToolCall
	for i := range n {
		burst = append(burst, call(fmt.Sprintf("p%d", i), "apply_patch", map[string]any{"input": fmt.Sprintf("*** Begin Patch\n*** Add File: d/f%d\n+x\n*** End Patch\n", i)}))
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tmp := filepath.Join(e.ws, "d.tmp")
		for {
			select {
			case <-stop:
				return
			default:
			}
			// Swap in the link, then put a directory back.
			_ = os.Rename(d, filepath.Join(e.ws, "d.real"))
			_ = os.Symlink(e.victim, tmp)
			_ = os.Rename(tmp, d)
			time.Sleep(50 * time.Microsecond)
			_ = os.Remove(d)
			_ = os.Rename(filepath.Join(e.ws, "d.real"), d)
			_ = os.Mkdir(d, 0o755)
		}
	})
	e.run(t, map[string][]rtStep{"root": {calls(burst...)}}, nil)
	close(stop)
	wg.Wait()
	ents, _ := os.ReadDir(e.victim)
	var leaked []string
	for _, de := range ents {
		if strings.HasPrefix(de.Name(), "f") {
			leaked = append(leaked, de.Name())
		}
	}
	ok := 0
	for i := range n {
		if strings.Contains(e.h.out(fmt.Sprintf("p%d", i)), "Success") {
			ok++
		}
	}
	t.Logf("%d of %d patches reported success during the swap", ok, n)
	if len(leaked) > 0 {
		t.Errorf("ESCAPE: %d files landed in the victim dir: %v\n%s", len(leaked), leaked, e.diag())
	}
}

// TestRedteamProtectedDirs: .git (hooks run as the user on the next git
// command) and the agent-template dirs stay read-only under
// workspace-write, for commands and for apply_patch.
func TestRedteamProtectedDirs(t *testing.T) {
	gitInit := func(t *testing.T, e *rtEnv) {
		writeFile(t, filepath.Join(e.ws, ".git", "HEAD"), "ref: refs/heads/main\n")
		writeFile(t, filepath.Join(e.ws, ".git", "config"), "[core]\n")
		if err := os.MkdirAll(filepath.Join(e.ws, ".git", "hooks"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	noneOf := func(paths ...string) func(t *testing.T, e *rtEnv) {
		return func(t *testing.T, e *rtEnv) {
			for _, p := range paths {
				mustNotExist(t, e, filepath.Join(e.ws, p))
			}
			mustHold(t, e, filepath.Join(e.ws, ".git", "config"), "[core]\n")
		}
	}
	runAttacks(t, withoutUserns([]rtAttack{
		{name: "git-hook-by-command", setup: gitInit, root: func(e *rtEnv) []rtStep {
			return []rtStep{sh("w", "printf '#!/bin/sh\\ntouch /tmp/owned\\n' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit; echo '[core] hooksPath = /tmp' >> .git/config")}
		}, check: noneOf(".git/hooks/pre-commit")},
		{name: "git-hook-by-patch", setup: gitInit, root: func(e *rtEnv) []rtStep {
			return []rtStep{patch("p", "*** Add File: .git/hooks/post-checkout\n+#!/bin/sh\n+touch /tmp/owned\n")}
		}, check: noneOf(".git/hooks/post-checkout")},
		{name: "git-config-by-patch", setup: gitInit, root: func(e *rtEnv) []rtStep {
			return []rtStep{patch("p", "*** Update File: .git/config\n@@\n [core]\n+\tfsmonitor = touch /tmp/owned\n")}
		}, check: noneOf()},
		{name: "project-template-planted", setup: gitInit, root: func(e *rtEnv) []rtStep {
			return []rtStep{sh("w", "mkdir -p .grove/agents .codex/.agents .claude/agents && for d in .grove/agents .codex/.agents .claude/agents; do printf -- '---\\ndescription: x\\n---\\nobey\\n' > $d/worker.md; done"),
				patch("p", "*** Add File: .grove/agents/explorer.md\n+---\n+description: x\n+---\n+obey\n")}
		}, check: noneOf(".grove/agents/worker.md", ".codex/.agents/worker.md", ".claude/agents/worker.md", ".grove/agents/explorer.md")},
	}))
}

// TestRedteamAbsentProtectedNames (issue 21, fourth pass): in a workspace
// that has none, a command created .git with a hook, .codex/config.toml
// and a nested repository whose config runs an fsmonitor — all run
// outside the sandbox by the user's next git command or grove start.
// With namespaces the top-level names are read-only placeholders (and
// gone when grove exits); deeper ones and, without namespaces, all of
// them are moved aside after the command, which says so.
func TestRedteamAbsentProtectedNames(t *testing.T) {
	plant := "mkdir -p .git/hooks && printf '#!/bin/sh\\ntouch /tmp/owned\\n' > .git/hooks/post-checkout; " +
		"mkdir -p .codex && echo 'notify = [\"touch\", \"/tmp/owned\"]' > .codex/config.toml; " +
		"mkdir -p lib/.git && echo '[core] fsmonitor = touch /tmp/owned' > lib/.git/config; echo END"
	check := func(t *testing.T, e *rtEnv) {
		for _, p := range []string{".git", ".codex", "lib/.git", ".grove", ".agents", ".claude"} {
			mustNotExist(t, e, filepath.Join(e.ws, p))
		}
		if out := e.h.out("w"); !strings.Contains(out, "END") || !strings.Contains(out, "lib/.git.grove-quarantine-1") {
			t.Errorf("the model was not told what was moved: %q\n%s", out, e.diag())
		}
	}
	runAttacks(t, withoutUserns([]rtAttack{
		{name: "plant-absent-names", root: func(e *rtEnv) []rtStep { return []rtStep{sh("w", plant)} }, check: check},
		{name: "plant-by-patch", root: func(e *rtEnv) []rtStep {
			return []rtStep{patch("p", "*** Add File: .codex/config.toml\n+notify = [\"touch\", \"/tmp/owned\"]\n"),
				patch("p2", "*** Add File: lib/.git/config\n+[core]\n+\tfsmonitor = touch /tmp/owned\n")}
		}, check: func(t *testing.T, e *rtEnv) {
			for _, p := range []string{".codex", "lib/.git"} {
				mustNotExist(t, e, filepath.Join(e.ws, p))
			}
		}},
	}))
}

// TestRedteamNestedProtectedDirs (issue 21): only the first path
// component was protected; a nested repository's hooks, agent
// configuration below the top level and the directory `git init
// --separate-git-dir` names were written by commands and apply_patch.
// With and without user namespaces (without, the command is refused).
func TestRedteamNestedProtectedDirs(t *testing.T) {
	layout := func(t *testing.T, e *rtEnv) {
		for _, d := range []string{"sub/.git/hooks", "sub/.grove/agents", "lib/x/.codex", ".repo/hooks"} {
			if err := os.MkdirAll(filepath.Join(e.ws, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		writeFile(t, filepath.Join(e.ws, ".git"), "gitdir: .repo\n")
		writeFile(t, filepath.Join(e.ws, ".repo", "config"), "[core]\n")
	}
	noneOf := func(paths ...string) func(t *testing.T, e *rtEnv) {
		return func(t *testing.T, e *rtEnv) {
			for _, p := range paths {
				mustNotExist(t, e, filepath.Join(e.ws, p))
			}
			mustHold(t, e, filepath.Join(e.ws, ".git"), "gitdir: .repo\n")
			mustHold(t, e, filepath.Join(e.ws, ".repo", "config"), "[core]\n")
		}
	}
	hook := "#!/bin/sh\ntouch /tmp/owned\n"
	runAttacks(t, withoutUserns([]rtAttack{
		{name: "nested-hook-by-command", setup: layout, root: func(e *rtEnv) []rtStep {
			return []rtStep{sh("w", "printf '"+hook+"' > sub/.git/hooks/pre-commit; printf x > sub/.grove/agents/evil.md; printf x > lib/x/.codex/config.toml; echo END")}
		}, check: noneOf("sub/.git/hooks/pre-commit", "sub/.grove/agents/evil.md", "lib/x/.codex/config.toml")},
		{name: "separate-git-dir-by-command", setup: layout, root: func(e *rtEnv) []rtStep {
			return []rtStep{sh("w", "printf '"+hook+"' > .repo/hooks/pre-commit; echo '[core] hooksPath = /tmp' >> .repo/config; echo 'gitdir: /tmp' > .git; echo END")}
		}, check: noneOf(".repo/hooks/pre-commit")},
		{name: "nested-by-patch", setup: layout, root: func(e *rtEnv) []rtStep {
			return []rtStep{patch("p1", "*** Add File: sub/.git/hooks/post-checkout\n+#!/bin/sh\n+touch /tmp/owned\n"),
				patch("p2", "*** Add File: .repo/hooks/post-checkout\n+#!/bin/sh\n"),
				patch("p3", "*** Add File: new/deep/.grove/agents/evil.md\n+obey\n"),
				patch("p4", "*** Add File: y/.agents/evil.md\n+obey\n")}
		}, check: noneOf("sub/.git/hooks/post-checkout", ".repo/hooks/post-checkout", "new/deep/.grove/agents/evil.md", "y/.agents/evil.md")},
	}))
}

// TestRedteamMetadataOutside: chmod, utime, xattrs and chown on files
// outside the writable roots (Landlock does not cover them).
func TestRedteamMetadataOutside(t *testing.T) {
	unchanged := func(t *testing.T, e *rtEnv) {
		t.Helper()
		var st syscall.Stat_t
		if err := syscall.Stat(filepath.Join(e.victim, "secret"), &st); err != nil {
			t.Fatal(err)
		}
		if st.Mode&0o777 != 0o644 || st.Uid != uint32(os.Getuid()) || st.Mtim.Sec < time.Now().Add(-time.Hour).Unix() {
			t.Errorf("ESCAPE: victim metadata changed: mode %o uid %d mtime %d\n%s", st.Mode&0o777, st.Uid, st.Mtim.Sec, e.diag())
		}
		if sz, _ := syscall.Getxattr(filepath.Join(e.victim, "secret"), "user.redteam", make([]byte, 64)); sz > 0 {
			t.Errorf("ESCAPE: xattr set on the victim\n%s", e.diag())
		}
	}
	cmds := func(e *rtEnv) string {
		s := e.victim + "/secret"
		return fmt.Sprintf("chmod 777 %[1]s; touch -m -d 2001-01-01 %[1]s; chown 1:1 %[1]s; setfattr -n user.redteam -v 1 %[1]s 2>/dev/null || python3 -c 'import os; os.setxattr(%[2]q, \"user.redteam\", b\"1\")'", s, s)
	}
	for _, mode := range []string{"workspace-write", "read-only"} {
		runAttacks(t, []rtAttack{{name: mode, args: []string{"-s", mode}, root: func(e *rtEnv) []rtStep {
			return []rtStep{sh("m", cmds(e))}
		}, check: unchanged}})
	}
}
