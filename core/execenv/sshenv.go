package execenv

import (
	"slices"
	"strings"

	"github.com/grovecli/grove/core/shellenv"
)

// sshKeeps are names the default secret patterns catch that the ssh client
// itself needs: the agent socket (*AUTH*) and the askpass helper (*PASS*).
// They point at a socket or a program, not at a secret value.
var sshKeeps = []string{"SSH_AUTH_SOCK", "SSH_AGENT_PID", "SSH_ASKPASS", "SSH_ASKPASS_REQUIRE"}

// sshEnv is the environment the system ssh client starts with: grove's own,
// without provider keys and other secrets (the default shell-environment
// excludes), so a user's SendEnv, ProxyCommand or LocalCommand never hands
// them to the host or to a helper program.
func sshEnv(base []string) []string {
	out := make([]string, 0, len(base))
	for _, kv := range base {
		name, value, _ := strings.Cut(kv, "=")
		if slices.Contains(sshKeeps, name) || !shellenv.IsDefaultSecret(name, value) {
			out = append(out, kv)
		}
	}
	return out
}
