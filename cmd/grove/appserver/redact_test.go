package appserver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 31.17: config/read sends no secret-bearing value — a provider's
// experimental_bearer_token and query_params, shell_environment_policy.set,
// MCP args, env and headers, a secret-named key, a value that looks like a
// credential — in the file's layer, the -c layer, or the merged config.
func TestConfigReadRedactsSecrets(t *testing.T) {
	secrets := []string{
		"bearer-sekrit-1", "azure-key-2", "set-sekrit-3", "arg-token-4", "env-sekrit-5",
		"hdr-sekrit-6", "hunter2-7", "pgpass-8", "cli-token-9",
	}
	file := filepath.Join(t.TempDir(), "config.toml")
	body := `model = "gpt-5"
env_key_note = "ok"
[model_providers.corp]
name = "Corp"
base_url = "https://llm.corp/v1"
env_key = "CORP_KEY"
experimental_bearer_token = "bearer-sekrit-1"
query_params = { "api-version" = "2025-01-01", "api-key" = "azure-key-2" }
[shell_environment_policy]
set = { DEPLOY = "set-sekrit-3" }
[mcp_servers.gh]
command = "npx"
args = ["-y", "@acme/server", "--token", "arg-token-4"]
env = { API = "env-sekrit-5" }
[mcp_servers.web]
url = "https://mcp.example/sse"
http_headers = { "X-Api" = "hdr-sekrit-6" }
[custom]
db_password = "hunter2-7"
dsn = "postgres://app:pgpass-8@db/app"
`
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	h := &Host{ConfigFile: file, Overrides: []string{`mcp_servers.cli.args=["--api-key","cli-token-9"]`, `model="o3"`}}
	resp, err := h.readConfig(true)
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(resp)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range secrets {
		if strings.Contains(string(out), s) {
			t.Errorf("config/read sent %q", s)
		}
	}
	for _, keep := range []string{`"env_key":"CORP_KEY"`, `"base_url":"https://llm.corp/v1"`, `"command":"npx"`, `"api-version":"[redacted]"`, `"model":"o3"`} {
		if !strings.Contains(string(out), keep) {
			t.Errorf("config/read lost %s: %s", keep, out)
		}
	}
}
