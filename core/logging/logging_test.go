package logging

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readLog(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not a JSON record: %q", line)
		}
		out = append(out, m)
	}
	return out
}

func TestRecordsAreJSONAndMirrored(t *testing.T) {
	home := t.TempDir()
	var mirror bytes.Buffer
	l, err := Open(home, Options{Mirror: &mirror})
	if err != nil {
		t.Fatal(err)
	}
	l.Info("shutdown step", "step", "engine", "duration_ms", 12)
	must(t, l.Close())
	recs := readLog(t, filepath.Join(home, "log", "grove.log"))
	if len(recs) != 1 || recs[0]["msg"] != "shutdown step" || recs[0]["step"] != "engine" || recs[0]["duration_ms"] != 12.0 {
		t.Fatalf("records %v", recs)
	}
	if !strings.Contains(mirror.String(), `"msg":"shutdown step"`) {
		t.Fatalf("mirror %q", mirror.String())
	}
}

// TestNoSecretsInTheLog: a key from the environment, a secret added later
// (a config header), a credential-named attribute: none reaches the file,
// whether in the message, a string, an error or a struct.
func TestNoSecretsInTheLog(t *testing.T) {
	envKey := "sk-env-0123456789abcdef"
	headerSecret := "Bearer hdr-secret-abcdef012345"
	t.Setenv("OPENAI_API_KEY", envKey)
	t.Setenv("MY_SERVICE_TOKEN", "tok-9876543210")
	t.Setenv("SHORT_KEY", "abc") // too short to redact: common words survive
	home := t.TempDir()
	var mirror bytes.Buffer
	l, err := Open(home, Options{Mirror: &mirror})
	if err != nil {
		t.Fatal(err)
	}
	l.AddSecret(headerSecret)
	type cfg struct{ Headers map[string]string }
	l.Warn("retry after 401 with key "+envKey, "err", errors.New("auth "+envKey+" failed"),
		"headers", cfg{Headers: map[string]string{"Authorization": headerSecret}},
		"api_key", "whatever-value", "cmd", "curl -H 'X: tok-9876543210'", "word", "abc")
	l.With("provider_key", envKey).Info("with attrs")
	must(t, l.Close())
	b, _ := os.ReadFile(l.Path)
	for _, out := range []string{string(b), mirror.String()} {
		for _, secret := range []string{envKey, "hdr-secret-abcdef012345", "tok-9876543210", "whatever-value"} {
			if strings.Contains(out, secret) {
				t.Fatalf("secret %q in the log:\n%s", secret, out)
			}
		}
		if !strings.Contains(out, redacted) || !strings.Contains(out, `"word":"abc"`) {
			t.Fatalf("log %s", out)
		}
	}
}

// TestRotationKeepsThreeFiles: the log rotates by size into grove.log.1
// and grove.log.2; older records are dropped, no record is split.
func TestRotationKeepsThreeFiles(t *testing.T) {
	home := t.TempDir()
	l, err := Open(home, Options{MaxBytes: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		l.Info("record", "n", i, "pad", strings.Repeat("x", 100))
	}
	must(t, l.Close())
	dir := filepath.Join(home, "log")
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if fmt.Sprint(names) != "[grove.log grove.log.1 grove.log.2]" {
		t.Fatalf("files %v", names)
	}
	last := -1
	for _, name := range []string{"grove.log.2", "grove.log.1", "grove.log"} {
		st, _ := os.Stat(filepath.Join(dir, name))
		if st.Size() > 1000 {
			t.Errorf("%s has %d bytes", name, st.Size())
		}
		for _, r := range readLog(t, filepath.Join(dir, name)) {
			n := int(r["n"].(float64))
			if n != last+1 && last != -1 {
				t.Fatalf("%s: record %d after %d", name, n, last)
			}
			last = n
		}
	}
	if last != 99 {
		t.Fatalf("last record %d", last)
	}
	// Reopening continues the live file and its size.
	l, err = Open(home, Options{MaxBytes: 1000})
	if err != nil {
		t.Fatal(err)
	}
	l.Info("again")
	must(t, l.Close())
	if recs := readLog(t, filepath.Join(dir, "grove.log")); recs[len(recs)-1]["msg"] != "again" {
		t.Fatalf("records %v", recs)
	}
}

func TestInstallAndL(t *testing.T) {
	L().Info("dropped: nothing installed")
	home := t.TempDir()
	l, err := Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	Install(l)
	L().Info("installed")
	AddSecret("late-secret-123456")
	L().Info("x", "v", "late-secret-123456")
	l2, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	Install(l2) // closes l
	Install(nil)
	if recs := readLog(t, l.Path); len(recs) != 2 || recs[1]["v"] != redacted {
		t.Fatalf("records %v", recs)
	}
	if err := l2.Close(); err != nil {
		t.Fatal(err)
	}
	L().Info("dropped again")
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
