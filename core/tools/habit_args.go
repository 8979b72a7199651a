package tools

import (
	"bytes"
	"encoding/json"
)

// Models trained in another harness send arguments by habit that grove's
// tool knows but has no use for (Codex's spawn_agent service_tier). Such an
// argument is accepted and ignored; a field no harness has is still an
// error naming it. A tool lists its habit arguments by implementing
// HabitArgs; they are left out of its schema (the model is not invited to
// send them) and removed before validation.

// HabitArgs is a tool with arguments it accepts and ignores.
type HabitArgs interface {
	// IgnoredArgs names top-level arguments accepted and ignored.
	IgnoredArgs() []string
}

// dropHabitArgs removes t's ignored arguments from an argument object; other
// input comes back unchanged.
func dropHabitArgs(t Tool, b []byte) []byte {
	h, ok := t.(HabitArgs)
	if !ok || len(b) == 0 || b[0] != '{' {
		return b
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(b, &obj) != nil {
		return b
	}
	dropped := false
	for _, k := range h.IgnoredArgs() {
		if _, ok := obj[k]; ok {
			delete(obj, k)
			dropped = true
		}
	}
	if !dropped {
		return b
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return b
	}
	return bytes.TrimSpace(out)
}
