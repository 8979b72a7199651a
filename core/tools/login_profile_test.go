package tools

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// resetLoginEnv forgets the process's login snapshot (a test's own HOME).
func resetLoginEnv(t *testing.T) {
	t.Helper()
	loginEnv.once, loginEnv.env, loginEnv.refused = sync.Once{}, nil, ""
	t.Cleanup(func() { loginEnv.once, loginEnv.env, loginEnv.refused = sync.Once{}, nil, "" })
}

// plantProfile makes HOME hold a ~/.bash_profile a model appended to:
// it leaves a marker when it runs and puts its own directory first in
// PATH (so an escalated `git` would be the model's).
func plantProfile(t *testing.T, home string) (marker string) {
	t.Helper()
	marker = filepath.Join(t.TempDir(), "profile-ran")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	profile := "touch " + marker + "\nexport PATH=" + home + "/bin:$PATH\nexport PLANTED=1\n"
	if err := os.WriteFile(filepath.Join(home, ".bash_profile"), []byte(profile), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	return marker
}

// Issue 31 item 13: with HOME inside a writable root (the temp dir), a
// model-appended ~/.bash_profile ran in grove's next `bash -lc env`,
// outside the sandbox, and its PATH reached every command. The snapshot
// is refused, the reason names the profile and the root, and commands
// run `bash -c` in grove's own environment.
func TestLoginSnapshotRefusesWritableProfile(t *testing.T) {
	resetLoginEnv(t)
	root := t.TempDir()
	marker := plantProfile(t, filepath.Join(root, "home"))
	warn := PrepareLoginEnvironment([]string{root})
	if !strings.Contains(warn, filepath.Join(root, "home", ".bash_profile")) || !strings.Contains(warn, "could have written it") {
		t.Fatalf("warning %q", warn)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the planted profile ran outside the sandbox")
	}
	argv, env := shellCommand("git status")
	if !slices.Equal(argv, []string{"bash", "-c", "git status"}) {
		t.Fatalf("argv %q: a login shell would run the profile (outside the sandbox when escalated)", argv)
	}
	for _, kv := range env {
		if strings.HasPrefix(kv, "PLANTED=") || strings.HasPrefix(kv, "PATH="+filepath.Join(root, "home")) {
			t.Fatalf("the profile's variable reached the command: %s", kv)
		}
	}
}

// A profile no sandboxed command can write is run once, at session start.
func TestLoginSnapshotRunsProfileOutsideRoots(t *testing.T) {
	resetLoginEnv(t)
	marker := plantProfile(t, filepath.Join(t.TempDir(), "home"))
	if warn := PrepareLoginEnvironment([]string{t.TempDir()}); warn != "" {
		t.Fatalf("refused: %s", warn)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("the user's profile did not run")
	}
	if _, env := shellCommand("true"); !slices.Contains(env, "PLANTED=1") {
		t.Fatal("the login environment is not used")
	}
}

// A dotfile symlinked into the project counts where it points.
func TestLoginSnapshotFollowsDotfileSymlink(t *testing.T) {
	resetLoginEnv(t)
	home, project := filepath.Join(t.TempDir(), "home"), t.TempDir()
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, "bashrc"), []byte("export PLANTED=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(project, "bashrc"), filepath.Join(home, ".bashrc")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	if warn := PrepareLoginEnvironment([]string{project}); !strings.Contains(warn, ".bashrc") {
		t.Fatalf("warning %q", warn)
	}
}
