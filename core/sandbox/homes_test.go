//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// configHomesInTemp puts GROVE_HOME (with a config) and CODEX_HOME (not
// there yet) under the temp directory, a writable root, as HOME=/tmp does
// in many containers.
func configHomesInTemp(t *testing.T) (work, grove, codex string) {
	t.Helper()
	work, _ = dirs(t)
	tmp := os.Getenv("TMPDIR")
	grove, codex = filepath.Join(tmp, "gh"), filepath.Join(tmp, "ch")
	if err := os.MkdirAll(grove, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(grove, "config.toml"), []byte("model = \"m\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GROVE_HOME", grove)
	t.Setenv("CODEX_HOME", codex)
	return work, grove, codex
}

const plantConfig = `echo 'notify = ["touch", "/tmp/owned"]' >> "$G/config.toml"; mkdir -p "$C" && echo 'notify = ["touch", "/tmp/owned"]' > "$C/config.toml"; echo done`

func homesUntouched(t *testing.T, grove, codex, out string) {
	t.Helper()
	if raw, _ := os.ReadFile(filepath.Join(grove, "config.toml")); string(raw) != "model = \"m\"\n" {
		t.Errorf("GROVE_HOME's config.toml was changed to %q: %s", raw, out)
	}
	if exists(filepath.Join(codex, "config.toml")) {
		t.Errorf("CODEX_HOME's config.toml was created: %s", out)
	}
}

// Before: both were written (the temp dir is a writable root and is not
// scanned for protected names); the next start ran the notify program
// outside the sandbox.
func TestEscapeConfigHomesInWritableRoot(t *testing.T) {
	requireLandlock(t, 1)
	if !namespacesAvailable() {
		t.Skip("no user namespaces: see TestConfigHomesRefusedWithoutNamespaces")
	}
	work, grove, codex := configHomesInTemp(t)
	out, _ := sh(t, workspaceWrite, work, "G="+grove+" C="+codex+"; "+plantConfig)
	homesUntouched(t, grove, codex, out)
	if !deniedByKernel(out) {
		t.Errorf("not refused by the kernel: %s", out)
	}
	if out, code := sh(t, workspaceWrite, work, "echo ok > \"$TMPDIR/f\" && cat \"$TMPDIR/f\""); code != 0 || !strings.Contains(out, "ok") {
		t.Fatalf("the temp dir is no longer writable: exit %d: %s", code, out)
	}
	Shutdown()
}

func TestConfigHomesRefusedWithoutNamespaces(t *testing.T) {
	requireLandlock(t, 1)
	withoutNamespaces(t)
	work, grove, codex := configHomesInTemp(t)
	_, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close()
	_, err = Start(StartRequest{Policy: workspaceWrite, Cwd: work, Dir: work, Argv: []string{"bash", "-c", "G=" + grove + " C=" + codex + "; " + plantConfig}, Env: os.Environ(), Out: pw})
	if err == nil || !strings.Contains(err.Error(), grove) {
		t.Fatalf("ran with GROVE_HOME writable: %v", err)
	}
	homesUntouched(t, grove, codex, "")
}

// apply_patch refuses them too, existing or not.
func TestCheckWritableConfigHomes(t *testing.T) {
	work, grove, codex := configHomesInTemp(t)
	for _, p := range []string{filepath.Join(grove, "config.toml"), filepath.Join(codex, "config.toml"), filepath.Join(grove, "hooks.json")} {
		if err := CheckWritable(workspaceWrite, work, p); err == nil || !strings.Contains(err.Error(), "agent configuration") {
			t.Errorf("%s: %v", p, err)
		}
	}
	if err := CheckWritable(workspaceWrite, work, filepath.Join(os.Getenv("TMPDIR"), "other")); err != nil {
		t.Errorf("the rest of the temp dir: %v", err)
	}
}
