package appserver

import (
	"github.com/grovecli/grove/protocol"
	"github.com/grovecli/grove/rollout"
)

// sourceKinds is thread/list's sourceKinds filter mapped onto grove's two
// kinds of thread. grove does not record which front end (TUI, exec,
// app-server) started a session, so a root thread is any of Codex's
// interactive kinds; a sub-agent is always spawned by its parent's
// spawn_agent, Codex's SubAgent(ThreadSpawn).
type sourceKinds struct {
	roots, subAgents bool
}

// parseSourceKinds validates Codex's ThreadSourceKind names; none means
// Codex's default, the interactive threads (grove's roots).
func parseSourceKinds(names []string) (sourceKinds, *protocol.RPCError) {
	if len(names) == 0 {
		return sourceKinds{roots: true}, nil
	}
	var k sourceKinds
	for _, n := range names {
		switch n {
		case "cli", "vscode", "exec", "appServer":
			k.roots = true
		case "subAgent", "subAgentThreadSpawn":
			k.subAgents = true
		case "subAgentReview", "subAgentCompact", "subAgentOther", "unknown":
			// Kinds grove never creates: they select nothing.
		default:
			return sourceKinds{}, rpcError(protocol.RPCInvalidParams, "invalid params: sourceKinds: unknown variant %q", n)
		}
	}
	return k, nil
}

// keep reports whether e is of a kind asked for.
func (k sourceKinds) keep(e rollout.IndexEntry) bool {
	if e.ParentID != "" {
		return k.subAgents
	}
	return k.roots
}
