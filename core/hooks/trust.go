package hooks

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"
)

// Scope is where a hook was declared, which decides how it is trusted.
type Scope string

const (
	// ScopeManaged hooks come from the administrator (/etc/codex) and run
	// without a review.
	ScopeManaged Scope = "managed"
	// ScopeUser hooks come from the user's own configuration.
	ScopeUser Scope = "user"
	// ScopeProject hooks come from the repository; they load only in a
	// trusted project.
	ScopeProject Scope = "project"
)

// Trust is a hook's review status (Codex's HookTrustStatus, plus the
// project layer's and the disabled state).
type Trust string

const (
	TrustManaged   Trust = "managed"
	TrustTrusted   Trust = "trusted"
	TrustUntrusted Trust = "untrusted" // never reviewed
	TrustModified  Trust = "modified"  // reviewed, then changed
	// TrustProjectUntrusted: a project hook of a project that is not
	// `trust_level = "trusted"`; no review makes it run.
	TrustProjectUntrusted Trust = "project-untrusted"
	TrustDisabled         Trust = "disabled" // `enabled = false` in [hooks.state]
)

// Runs reports whether a hook with this status runs; bypass is
// --dangerously-bypass-hook-trust, which skips the review but neither the
// project's trust nor an explicit `enabled = false`.
func (t Trust) Runs(bypass bool) bool {
	switch t {
	case TrustManaged, TrustTrusted:
		return true
	case TrustUntrusted, TrustModified:
		return bypass
	}
	return false
}

// Reason says in words why a hook with this status does not run.
func (t Trust) Reason() string {
	switch t {
	case TrustUntrusted:
		return "not reviewed yet (run `grove hooks trust` or answer the TUI's prompt)"
	case TrustModified:
		return "changed since it was reviewed (review it again with `grove hooks trust`)"
	case TrustProjectUntrusted:
		return "the project is not trusted ([projects.\"<root>\"] trust_level = \"trusted\")"
	case TrustDisabled:
		return "disabled in [hooks.state]"
	}
	return ""
}

// hookHash is Codex's trust identity: sha256 over the canonical JSON of
// {event_name, matcher?, hooks: [normalized handler]} (keys sorted, no
// spaces, absent options omitted), written "sha256:<hex>". Matching it
// lets a review recorded by Codex count in grove and the other way round.
func hookHash(h Hook) string {
	handler := map[string]any{
		"type":    "command",
		"command": h.Command,
		"timeout": int64(h.Timeout / time.Second),
		"async":   h.Async,
	}
	if h.StatusMessage != "" {
		handler["statusMessage"] = h.StatusMessage
	}
	identity := map[string]any{
		"event_name": h.Event.label(),
		"hooks":      []any{handler},
	}
	if h.Matcher != nil {
		identity["matcher"] = *h.Matcher
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // serde_json writes <, > and & as they are
	_ = enc.Encode(identity) // maps encode with sorted keys
	sum := sha256.Sum256(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	return "sha256:" + hex.EncodeToString(sum[:])
}
