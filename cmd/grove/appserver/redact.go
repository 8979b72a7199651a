package appserver

import (
	"strings"

	"github.com/grovecli/grove/core/shellenv"
)

// redactedValue replaces a secret-bearing value in config/read.
const redactedValue = "[redacted]"

// secretTables are config tables whose every value may be a credential:
// environment for MCP servers, headers, a provider's query_params (an
// Azure api-key), shell_environment_policy.set. config/read names their
// keys but never sends their values.
var secretTables = map[string]bool{"env": true, "http_headers": true, "query_params": true, "set": true}

// secretLists are arrays whose items may be credentials: an MCP server's
// args (`--api-key`, a token as a positional argument).
var secretLists = map[string]bool{"args": true}

// nameHolders are keys whose value names an environment variable (or says
// how to get one), not a credential, though their names look secret.
var nameHolders = map[string]bool{
	"env_key": true, "env_key_instructions": true, "bearer_token_env_var": true,
	"preferred_auth_method": true, "cli_auth_credentials_store": true, "mcp_oauth_credentials_store": true,
}

// redact replaces every secret-bearing value in a config tree (issue
// 31.17): the tables and lists above, a key whose name says credential
// (experimental_bearer_token, api_key, password…), and any string that
// looks like one by itself (a URL with a password, a JWT, sk_live_…).
func redact(tree map[string]any) {
	for k, v := range tree {
		switch val := v.(type) {
		case map[string]any:
			if secretTables[k] {
				for sk := range val {
					val[sk] = redactedValue
				}
				continue
			}
			redact(val)
		case []any:
			tree[k] = redactList(val, secretLists[k])
		case []map[string]any:
			for _, m := range val {
				redact(m)
			}
		case string:
			if secretKeyName(k) || shellenv.IsSecretValue(val) {
				tree[k] = redactedValue
			}
		}
	}
}

func redactList(items []any, all bool) []any {
	out := make([]any, len(items))
	for i, it := range items {
		switch val := it.(type) {
		case map[string]any:
			redact(val)
			out[i] = val
		case string:
			if all || shellenv.IsSecretValue(val) {
				out[i] = redactedValue
				continue
			}
			out[i] = val
		default:
			out[i] = it
		}
	}
	return out
}

// secretKeyName: a key named like a credential by grove's default
// environment patterns (TOKEN, SECRET, KEY, PASS, AUTH, BEARER…).
func secretKeyName(k string) bool {
	if nameHolders[k] {
		return false
	}
	return shellenv.IsDefaultSecret(strings.ToUpper(k), "")
}
