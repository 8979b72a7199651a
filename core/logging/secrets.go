package logging

import (
	"fmt"
	"log/slog"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// redacted replaces a secret in a log record.
const redacted = "[REDACTED]"

// minSecretLen keeps short values ("1", "true") from being treated as
// secrets and blanking unrelated text.
const minSecretLen = 8

// secretEnvName matches environment variables that hold credentials.
var secretEnvName = regexp.MustCompile(`(?i)(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)`)

// secretAttrName matches attribute keys whose value is a credential
// whatever it is.
var secretAttrName = regexp.MustCompile(`(?i)(api_?key|token|secret|password|authorization)`)

// secretSet is the set of strings never to be written.
type secretSet struct {
	mu   sync.RWMutex
	list []string // longest first, so a secret inside another goes second
}

func newSecretSet() *secretSet { return &secretSet{} }

func (s *secretSet) add(v string) {
	v = strings.TrimSpace(v)
	if len(v) < minSecretLen {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, have := range s.list {
		if have == v {
			return
		}
	}
	s.list = append(s.list, v)
	sort.Slice(s.list, func(i, j int) bool { return len(s.list[i]) > len(s.list[j]) })
}

// addEnv adds the values of credential-looking variables ("NAME=value").
func (s *secretSet) addEnv(env []string) {
	for _, kv := range env {
		name, val, ok := strings.Cut(kv, "=")
		if ok && secretEnvName.MatchString(name) {
			s.add(val)
		}
	}
}

func (s *secretSet) redact(text string) string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, v := range s.list {
		if strings.Contains(text, v) {
			text = strings.ReplaceAll(text, v, redacted)
		}
	}
	return text
}

// replaceAttr is the slog ReplaceAttr hook: credential-named attributes
// lose their value, and every string-like value is redacted.
func (s *secretSet) replaceAttr(_ []string, a slog.Attr) slog.Attr {
	if secretAttrName.MatchString(a.Key) && a.Value.Kind() != slog.KindGroup {
		return slog.String(a.Key, redacted)
	}
	switch a.Value.Kind() {
	case slog.KindString:
		return slog.String(a.Key, s.redact(a.Value.String()))
	case slog.KindAny:
		v := a.Value.Any()
		switch v.(type) {
		case error, fmt.Stringer, string, []byte, []string:
			return slog.String(a.Key, s.redact(fmt.Sprint(v)))
		}
		// Other values (maps, structs) are rendered as text so that no
		// field can carry a secret past the redaction.
		return slog.String(a.Key, s.redact(fmt.Sprintf("%+v", v)))
	}
	return a
}
