package execenv

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The ssh client must not carry grove's provider key: a user's SendEnv,
// ProxyCommand or LocalCommand would hand it on. A fake ssh on PATH records
// the environment it was started with.
func TestSSHClientGetsNoSecrets(t *testing.T) {
	bin := t.TempDir()
	out := filepath.Join(t.TempDir(), "env")
	script := "#!/bin/sh\nenv > \"$GROVE_TEST_SSH_ENV\"\n"
	if err := os.WriteFile(filepath.Join(bin, "ssh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("GROVE_TEST_SSH_ENV", out)
	t.Setenv("OPENAI_API_KEY", "sk-test-provider-key")
	t.Setenv("GITHUB_TOKEN", "ghp-test")
	t.Setenv("MIRROR_URL", "https://user:hunter2@example.com/x")
	t.Setenv("SSH_AUTH_SOCK", "/tmp/test-agent.sock")
	t.Setenv("SSH_ASKPASS", "/usr/bin/test-askpass")

	tr, err := DialSSH(SSHHost{Name: "box", Dest: "box.invalid"})(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.ReadAll(tr) // EOF once the fake ssh has exited
	_ = tr.Close()
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("fake ssh did not run: %v", err)
	}
	env := string(b)
	for _, secret := range []string{"sk-test-provider-key", "ghp-test", "hunter2"} {
		if strings.Contains(env, secret) {
			t.Errorf("ssh was started with %q in its environment", secret)
		}
	}
	for _, keep := range []string{"SSH_AUTH_SOCK=/tmp/test-agent.sock", "SSH_ASKPASS=/usr/bin/test-askpass", "PATH="} {
		if !strings.Contains(env, keep) {
			t.Errorf("ssh lost %s (it needs it)", keep)
		}
	}
}
