package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The devkit and claude-code-hooks-mastery files (testdata/SOURCES.md)
// load unchanged: every command handler, its matcher, timeout and key.
func TestDiscoverPublicFiles(t *testing.T) {
	root := project(t, map[string]string{
		".codex/hooks.json":     fixture(t, "public/devkit.hooks.json"),
		".claude/settings.json": fixture(t, "public/claude-code-hooks-mastery.settings.json"),
	})
	st, err := LoadState(trustedProject(t, root))
	if err != nil {
		t.Fatal(err)
	}
	set := Discover(Locations{Cwd: root}, st)
	// devkit: 6 PreToolUse + 1 PermissionRequest + 4 PostToolUse + 2 Stop;
	// mastery: 7 of its 8 events are grove's (Notification is not).
	if got := len(set.Hooks); got != 13+7 {
		t.Fatalf("found %d hooks, want 20: %+v", got, set.Hooks)
	}
	pre := byEvent(set.Hooks, PreToolUse)
	if len(pre) != 7 {
		t.Fatalf("PreToolUse hooks = %d, want 7", len(pre))
	}
	first := pre[0]
	if *first.Matcher != "Bash" || first.Timeout.Seconds() != 10 || first.StatusMessage != "Safety check..." {
		t.Errorf("first devkit hook = %+v", first)
	}
	wantKey := filepath.Join(root, ".codex", "hooks.json") + ":pre_tool_use:0:0"
	if first.Key != wantKey {
		t.Errorf("key = %q, want %q", first.Key, wantKey)
	}
	if first.Trust != TrustUntrusted {
		t.Errorf("trust = %s, want untrusted (never reviewed)", first.Trust)
	}
	// The Stop group of the mastery file has matcher "" which Stop ignores.
	for _, h := range byEvent(set.Hooks, Stop) {
		if h.Matcher != nil {
			t.Errorf("Stop hook kept a matcher: %q", *h.Matcher)
		}
	}
	if !strings.Contains(strings.Join(set.Warnings, "\n"), `event "Notification" is not one grove fires`) {
		t.Errorf("no warning for the Notification event: %q", set.Warnings)
	}
	if len(set.Active(false)) != 0 {
		t.Errorf("unreviewed hooks would run without bypass")
	}
	if len(set.Active(true)) != 20 {
		t.Errorf("bypass runs %d hooks, want 20", len(set.Active(true)))
	}
}

// An untrusted project's hooks never run, not even with the bypass flag,
// and each says why.
func TestUntrustedProjectRefused(t *testing.T) {
	root := project(t, map[string]string{".codex/hooks.json": fixture(t, "public/gh-zen.hooks.json")})
	set := Discover(Locations{Cwd: root}, State{})
	if len(set.Hooks) != 2 {
		t.Fatalf("found %d hooks, want 2", len(set.Hooks))
	}
	for _, h := range set.Hooks {
		if h.Trust != TrustProjectUntrusted || h.Trust.Runs(true) {
			t.Errorf("%s: trust %s runs=%v", h.Key, h.Trust, h.Trust.Runs(true))
		}
		if !strings.Contains(h.Trust.Reason(), "trust_level") {
			t.Errorf("reason %q does not say how to trust the project", h.Trust.Reason())
		}
	}
}

// A review recorded by hash enables a hook; changing the hook asks again;
// the rest of the config file is left as it was.
func TestRecordTrustAndModified(t *testing.T) {
	root := project(t, map[string]string{".codex/hooks.json": fixture(t, "public/xhawk.hooks.json")})
	cfg := trustedProject(t, root)
	orig, _ := os.ReadFile(cfg)
	withComment := "# my settings\nmodel = \"gpt-5\"\n" + string(orig)
	if err := os.WriteFile(cfg, []byte(withComment), 0o600); err != nil {
		t.Fatal(err)
	}
	st, _ := LoadState(cfg)
	set := Discover(Locations{Cwd: root}, st)
	if len(set.NeedsReview()) != 2 {
		t.Fatalf("needs review: %d, want 2", len(set.NeedsReview()))
	}
	if err := RecordTrust(cfg, set.NeedsReview()); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(cfg)
	if !strings.HasPrefix(string(data), withComment) {
		t.Errorf("config lost its content:\n%s", data)
	}
	st, _ = LoadState(cfg)
	set = Discover(Locations{Cwd: root}, st)
	for _, h := range set.Hooks {
		if h.Trust != TrustTrusted {
			t.Errorf("%s: %s after review", h.Key, h.Trust)
		}
	}
	// Change one timeout: that hook (only) is modified.
	changed := strings.Replace(fixture(t, "public/xhawk.hooks.json"), `"timeout": 5`, `"timeout": 6`, 1)
	if err := os.WriteFile(filepath.Join(root, ".codex", "hooks.json"), []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	set = Discover(Locations{Cwd: root}, st)
	if set.Hooks[0].Trust != TrustModified || set.Hooks[1].Trust != TrustTrusted {
		t.Fatalf("after change: %s, %s; want modified, trusted", set.Hooks[0].Trust, set.Hooks[1].Trust)
	}
	// Reviewing again replaces the old hash instead of adding a table.
	if err := RecordTrust(cfg, set.NeedsReview()); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(cfg)
	if n := strings.Count(string(data), "[hooks.state."); n != 2 {
		t.Errorf("%d state tables, want 2:\n%s", n, data)
	}
	st, _ = LoadState(cfg)
	if Discover(Locations{Cwd: root}, st).Hooks[0].Trust != TrustTrusted {
		t.Error("re-review did not take")
	}
}

// Managed hooks (/etc/codex) run without review; `enabled = false`
// disables a hook even under the bypass flag.
func TestManagedAndDisabled(t *testing.T) {
	sys := t.TempDir()
	if err := os.WriteFile(filepath.Join(sys, "hooks.json"), []byte(fixture(t, "public/gh-zen.hooks.json")), 0o644); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	cfg := filepath.Join(home, "config.toml")
	userHooks := `[[hooks.PreToolUse]]
matcher = "Bash"
[[hooks.PreToolUse.hooks]]
type = "command"
command = "echo hi"

[hooks.state."` + cfg + `:pre_tool_use:0:0"]
enabled = false
`
	if err := os.WriteFile(cfg, []byte(userHooks), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := LoadState(cfg)
	if err != nil {
		t.Fatal(err)
	}
	set := Discover(Locations{Cwd: t.TempDir(), SystemDir: sys, GroveHome: home}, st)
	if len(set.Hooks) != 3 {
		t.Fatalf("found %d, want 3: %v", len(set.Hooks), set.Warnings)
	}
	if set.Hooks[0].Trust != TrustManaged || set.Hooks[2].Trust != TrustDisabled {
		t.Errorf("trust: %s %s %s", set.Hooks[0].Trust, set.Hooks[1].Trust, set.Hooks[2].Trust)
	}
	if set.Hooks[2].Format != FormatConfigTOML || set.Hooks[2].Command != "echo hi" {
		t.Errorf("inline TOML hook: %+v", set.Hooks[2])
	}
	if len(set.Active(true)) != 2 {
		t.Errorf("bypass ran a disabled hook")
	}
}

// A broken file is a warning naming it; the other files still load.
func TestBrokenFileIsNamed(t *testing.T) {
	root := project(t, map[string]string{
		".codex/hooks.json":     `{"hooks": {"PreToolUse": [ {"hooks": [{"type": "command"}]} ]}}`,
		".claude/settings.json": fixture(t, "public/claude-code-hooks-mastery.settings.json"),
		".grove/hooks.json":     `{"hook": {}}`,
	})
	set := Discover(Locations{Cwd: root}, State{})
	all := strings.Join(set.Warnings, "\n")
	for _, want := range []string{
		filepath.Join(root, ".codex", "hooks.json") + `: PreToolUse group 0 hook 0: command hook without "command"`,
		filepath.Join(root, ".grove", "hooks.json") + `: unknown field "hook"`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("warnings lack %q:\n%s", want, all)
		}
	}
	if len(set.Hooks) != 7 {
		t.Errorf("the good file's hooks: %d, want 7", len(set.Hooks))
	}
}

func TestMatcher(t *testing.T) {
	s := func(v string) *string { return &v }
	cases := []struct {
		m      *string
		inputs []string
		want   bool
	}{
		{nil, []string{"Bash"}, true},
		{s(""), []string{"Bash"}, true},
		{s("*"), []string{"Edit"}, true},
		{s("Bash"), []string{"Bash"}, true},
		{s("Bash"), []string{"BashOutput"}, false},
		{s("Edit|Write"), []string{"apply_patch", "Write", "Edit"}, true},
		{s("Edit|Write"), []string{"Bash"}, false},
		{s("^Bash"), []string{"BashOutput"}, true},
		{s("mcp__.*__write.*"), []string{"mcp__fs__write_file"}, true},
		{s("mcp__.*__write.*"), []string{"mcp__fs__read_file"}, false},
		{s("["), []string{"Bash"}, false},
	}
	for _, c := range cases {
		if got := matches(c.m, c.inputs); got != c.want {
			m := "<nil>"
			if c.m != nil {
				m = *c.m
			}
			t.Errorf("matches(%q, %v) = %v, want %v", m, c.inputs, got, c.want)
		}
	}
}

// The hash is Codex's identity: it ignores the file a hook is in and
// changes with what the hook does.
func TestHookHash(t *testing.T) {
	m := "Bash"
	a := Hook{Event: PreToolUse, Matcher: &m, Command: "echo <a> & b", Timeout: DefaultTimeout}
	b := a
	b.File = "/elsewhere/hooks.json"
	if hookHash(a) != hookHash(b) {
		t.Error("hash depends on the file")
	}
	// The canonical JSON Codex hashes (serde_json, keys sorted, no HTML escaping).
	canonical := `{"event_name":"pre_tool_use","hooks":[{"async":false,"command":"echo <a> & b","timeout":600,"type":"command"}],"matcher":"Bash"}`
	sum := sha256.Sum256([]byte(canonical))
	if got, want := hookHash(a), "sha256:"+hex.EncodeToString(sum[:]); got != want {
		t.Errorf("hash %q, want %q (of %s)", got, want, canonical)
	}
	for _, change := range []func(*Hook){
		func(h *Hook) { h.Command = "echo other" },
		func(h *Hook) { h.Timeout = 5e9 },
		func(h *Hook) { h.Matcher = nil },
		func(h *Hook) { h.Async = true },
		func(h *Hook) { h.Event = PostToolUse },
	} {
		c := a
		change(&c)
		if hookHash(c) == hookHash(a) {
			t.Errorf("hash unchanged by %+v", c)
		}
	}
}
