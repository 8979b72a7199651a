package mcp

import (
	"crypto/sha1"
	"encoding/hex"
	"strings"
)

// Tool names are mcp__<server>__<tool> (Claude Code's convention, so agent
// files and allow/deny globs such as mcp__github__* select them). Providers
// restrict names to [a-zA-Z0-9_-]{1,64}; a name outside that is made to fit
// with a stable rule, and the Manager maps it back to (server, tool).
const (
	namePrefix    = "mcp__"
	nameSep       = "__"
	maxToolName   = 64
	hashSuffixLen = 8
)

// QualifiedName is the raw (unsanitised) grove name of a server's tool.
func QualifiedName(server, tool string) string { return namePrefix + server + nameSep + tool }

// ServerPrefix is the name prefix all tools of a server share.
func ServerPrefix(server string) string { return namePrefix + server + nameSep }

// SplitName parses a tool name made by QualifiedName back into the server
// and the tool (ok false for a name that is not an MCP tool's). A name
// that had to be sanitised splits at its first separator.
func SplitName(name string) (server, tool string, ok bool) {
	rest, found := strings.CutPrefix(name, namePrefix)
	if !found {
		return "", "", false
	}
	server, tool, ok = strings.Cut(rest, nameSep)
	if !ok || server == "" || tool == "" {
		return "", "", false
	}
	return server, tool, true
}

// sanitizeName replaces characters providers reject with '_' and, when the
// result is too long or differs from raw, keeps it unique by ending it with
// a hash of the raw name. The result depends only on raw, so a tool keeps
// its name across restarts and sessions.
func sanitizeName(raw string) string {
	var b strings.Builder
	for _, r := range raw {
		if r == '_' || r == '-' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	s := b.String()
	if s == raw && len(s) <= maxToolName {
		return s
	}
	sum := sha1.Sum([]byte(raw))
	h := hex.EncodeToString(sum[:])[:hashSuffixLen]
	if len(s) > maxToolName-hashSuffixLen-1 {
		s = s[:maxToolName-hashSuffixLen-1]
	}
	return s + "_" + h
}
