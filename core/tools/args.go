package tools

import (
	"encoding/json"
	"fmt"
	"path/filepath"
)

// decode unmarshals schema-validated arguments.
func decode(name string, raw json.RawMessage, v any) error {
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("invalid arguments for %s: %v", name, err)
	}
	return nil
}

// resolvePath makes p absolute against the thread's cwd.
func resolvePath(cwd, p string) string {
	if p == "" {
		return cwd
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(cwd, p)
}
