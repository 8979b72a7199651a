package config

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
)

// codexSchema is Codex's config schema (testdata/codex/README.md says
// which commit and what was trimmed).
type codexSchema struct {
	defs map[string]map[string]any
}

func loadCodexSchema(t *testing.T) (*codexSchema, map[string]any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "codex", "config.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var root map[string]any
	if err := json.Unmarshal(data, &root); err != nil {
		t.Fatalf("config.schema.json: %v", err)
	}
	s := &codexSchema{defs: map[string]map[string]any{}}
	for name, d := range root["definitions"].(map[string]any) {
		s.defs[name] = d.(map[string]any)
	}
	return s, root
}

// resolve follows $ref and single-element allOf.
func (s *codexSchema) resolve(n map[string]any) map[string]any {
	for {
		if ref, ok := n["$ref"].(string); ok {
			n = s.defs[strings.TrimPrefix(ref, "#/definitions/")]
			continue
		}
		if all, ok := n["allOf"].([]any); ok && len(all) == 1 {
			n = all[0].(map[string]any)
			continue
		}
		return n
	}
}

// sample builds a valid value for node, preferring table shapes (they
// hold more keys), and records the path of every leaf key ("*" where the
// user picks the name; the sample uses "example" there).
func (s *codexSchema) sample(n map[string]any, path []string, leaves *[]string) any {
	n = s.resolve(n)
	for _, alt := range []string{"anyOf", "oneOf"} {
		if opts, ok := n[alt].([]any); ok {
			pick := s.resolve(opts[0].(map[string]any))
			for _, o := range opts {
				if r := s.resolve(o.(map[string]any)); r["type"] == "object" {
					pick = r
					break
				}
			}
			return s.sample(pick, path, leaves)
		}
	}
	if enum, ok := n["enum"].([]any); ok {
		*leaves = append(*leaves, strings.Join(path, "."))
		return enum[0]
	}
	switch n["type"] {
	case "object":
		out := map[string]any{}
		props, _ := n["properties"].(map[string]any)
		for k, v := range props {
			if sub, ok := v.(map[string]any); ok {
				out[k] = s.sample(sub, append(append([]string(nil), path...), k), leaves)
			} else { // `"body": true`: any value
				*leaves = append(*leaves, strings.Join(append(append([]string(nil), path...), k), "."))
				out[k] = "x"
			}
		}
		switch ap := n["additionalProperties"].(type) {
		case map[string]any:
			out["example"] = s.sample(ap, append(append([]string(nil), path...), "*"), leaves)
		case bool:
			if ap {
				*leaves = append(*leaves, strings.Join(append(append([]string(nil), path...), "*"), "."))
				out["example"] = "x"
			}
		}
		if len(out) == 0 {
			*leaves = append(*leaves, strings.Join(path, "."))
		}
		return out
	case "array":
		item := s.sample(n["items"].(map[string]any), path, leaves)
		return []any{item}
	}
	*leaves = append(*leaves, strings.Join(path, "."))
	switch n["type"] {
	case "boolean":
		return true
	case "integer":
		return int64(1)
	case "number":
		return 1.5
	}
	return "x"
}

// everyCodexKey is a config.toml holding every key Codex's schema accepts,
// with values a heavy Codex user could have written.
func everyCodexKey(t *testing.T) (string, []string) {
	s, root := loadCodexSchema(t)
	var leaves []string
	tree := s.sample(root, nil, &leaves).(map[string]any)
	dir := t.TempDir()
	instr := filepath.Join(dir, "instructions.md")
	if err := os.WriteFile(instr, []byte("You are careful.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Values with a meaning: names that point at other tables, a file
	// that must exist, one stdio and one HTTP MCP server.
	tree["model_provider"] = "example"
	tree["profile"] = "example"
	tree["model_instructions_file"] = instr
	prof := tree["profiles"].(map[string]any)["example"].(map[string]any)
	prof["model_provider"] = "example"
	prof["model_instructions_file"] = instr
	prov := tree["model_providers"].(map[string]any)["example"].(map[string]any)
	prov["base_url"] = "http://127.0.0.1:1/v1"
	prov["env_key"] = "GROVE_TEST_CODEX_KEY"
	delete(prov, "experimental_bearer_token")
	servers := tree["mcp_servers"].(map[string]any)
	stdio := servers["example"].(map[string]any)
	http := map[string]any{}
	for _, k := range []string{"url", "http_headers", "env_http_headers", "bearer_token_env_var"} {
		http[k] = stdio[k]
		delete(stdio, k)
	}
	servers["remote"] = http
	stdio["env_vars"] = []any{"GROVE_TEST_PASSED", map[string]any{"name": "GROVE_TEST_TABLE", "source": "local"}}
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(tree); err != nil {
		t.Fatal(err)
	}
	sort.Strings(leaves)
	return buf.String(), leaves
}

// TestCodexTableCoversSchema: every key Codex accepts has a row in
// CodexKeys, and every row names a key Codex has.
func TestCodexTableCoversSchema(t *testing.T) {
	_, leaves := everyCodexKey(t)
	if len(leaves) < 300 {
		t.Fatalf("only %d keys found in the schema: the walk is broken", len(leaves))
	}
	uniq := map[string]bool{}
	for _, l := range leaves {
		uniq[l] = true
	}
	t.Logf("%d keys in Codex's schema, %d rows in CodexKeys", len(uniq), len(CodexKeys))
	used := map[string]bool{}
	for _, l := range leaves {
		row, ok := codexKeyFor(strings.Split(l, "."))
		if !ok {
			t.Errorf("Codex key %s has no row in CodexKeys", l)
			continue
		}
		used[row.Key] = true
	}
	for _, r := range CodexKeys {
		if !used[r.Key] {
			t.Errorf("CodexKeys row %q matches no key of Codex's schema", r.Key)
		}
	}
}

// TestEveryCodexKeyLoads: a config with every key of Codex's schema, in
// CODEX_HOME and no grove config, loads with no error, says which file it
// used and names what grove ignores in one line.
func TestEveryCodexKeyLoads(t *testing.T) {
	body, _ := everyCodexKey(t)
	codex := t.TempDir()
	if err := os.WriteFile(filepath.Join(codex, "config.toml"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(codex, "AGENTS.md"), []byte("Always run the tests.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadWith(LoadOptions{Home: t.TempDir(), CodexHome: codex})
	if err != nil {
		t.Fatalf("load: %v\n%s", err, body)
	}
	if !cfg.FromCodex || cfg.Source != filepath.Join(codex, "config.toml") {
		t.Fatalf("source %q fromCodex %v", cfg.Source, cfg.FromCodex)
	}
	var ignored []string
	for _, w := range cfg.Warnings {
		switch {
		case strings.Contains(w, "using Codex's"):
		case strings.HasPrefix(w, "config: grove does not use these Codex keys"):
			ignored = append(ignored, w)
		default:
			t.Errorf("unexpected warning: %s", w)
		}
	}
	if len(ignored) != 1 {
		t.Fatalf("want one line naming ignored keys, got %d: %q", len(ignored), ignored)
	}
	for _, r := range CodexKeys {
		if r.Status != KeyNotYet && strings.Contains(ignored[0], " "+r.Key+",") {
			t.Errorf("%s is %s but was not read: %s", r.Key, r.Status, ignored[0])
		}
	}
	if cfg.Model != "x" || cfg.Agents.MaxThreads != 1 || cfg.TUI.NotificationCondition != "unfocused" {
		t.Errorf("implemented keys not read: model %q max_threads %d", cfg.Model, cfg.Agents.MaxThreads)
	}
	if cfg.ModelInstructions != "You are careful.\n" || cfg.UserAgentsMD != "Always run the tests." || cfg.UserAgentsMDPath != filepath.Join(codex, "AGENTS.md") {
		t.Errorf("instruction files: %q / %q (%s)", cfg.ModelInstructions, cfg.UserAgentsMD, cfg.UserAgentsMDPath)
	}
	if len(cfg.MCPServers) != 2 {
		t.Fatalf("mcp servers: %v", cfg.MCPServers)
	}
	env := cfg.MCPServers["example"].ProcessEnv(func(k string) (string, bool) { return "v-" + k, k != "HOME" })
	if env["GROVE_TEST_PASSED"] != "v-GROVE_TEST_PASSED" || env["GROVE_TEST_TABLE"] != "v-GROVE_TEST_TABLE" || env["example"] != "x" {
		t.Errorf("env_vars: %v", env)
	}
	if got := cfg.MCPServers["example"].StartupTimeout(); got != time.Millisecond {
		t.Errorf("startup_timeout_ms = 1 gave %v", got)
	}
	r, err := cfg.ResolveProvider(func(k string) string {
		if k == "GROVE_TEST_CODEX_KEY" {
			return "sk-test"
		}
		return ""
	})
	if err != nil || r.APIKey != "sk-test" || r.BaseURL != "http://127.0.0.1:1/v1" {
		t.Fatalf("provider: %+v %v", r, err)
	}
}
