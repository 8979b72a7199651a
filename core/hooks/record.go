package hooks

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// RecordTrust writes each hook's current hash as its review into
// configPath (`[hooks.state."<key>"] trusted_hash = "..."`), replacing an
// older review of the same key and leaving the rest of the file as it is.
// The result is read back; if it does not say exactly that, nothing is
// written and the error names the file.
func RecordTrust(configPath string, hs []Hook) error {
	data, err := os.ReadFile(configPath)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("read config %s: %w", configPath, err)
	}
	text := string(data)
	for _, h := range hs {
		text = setStateField(text, h.Key, "trusted_hash", h.Hash)
		if h.FilesHash != "" {
			text = setStateField(text, h.Key, "grove_files_hash", h.FilesHash)
		}
	}
	if err := os.MkdirAll(filepath.Dir(configPath), 0o700); err != nil {
		return fmt.Errorf("record hook trust in %s: %w", configPath, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(configPath), ".config.toml.*")
	if err != nil {
		return fmt.Errorf("record hook trust in %s: %w", configPath, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(text); err != nil {
		tmp.Close()
		return fmt.Errorf("record hook trust in %s: %w", configPath, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("record hook trust in %s: %w", configPath, err)
	}
	st, err := LoadState(tmp.Name())
	if err != nil {
		return fmt.Errorf("record hook trust in %s: the edited file would not parse (%v); unchanged", configPath, err)
	}
	for _, h := range hs {
		if got := st.Hooks[h.Key]; got.TrustedHash != h.Hash || got.FilesHash != h.FilesHash {
			return fmt.Errorf("record hook trust in %s: [hooks.state] is written in a form grove cannot edit (key %s); unchanged", configPath, h.Key)
		}
	}
	if fi, err := os.Stat(configPath); err == nil {
		_ = os.Chmod(tmp.Name(), fi.Mode().Perm())
	}
	if err := os.Rename(tmp.Name(), configPath); err != nil {
		return fmt.Errorf("record hook trust in %s: %w", configPath, err)
	}
	return nil
}

// setStateField edits field (trusted_hash, grove_files_hash) of key's
// table in text, or adds it, appending the table when it is missing.
func setStateField(text, key, field, value string) string {
	header := "[hooks.state." + tomlQuote(key) + "]"
	line := field + " = " + tomlQuote(value)
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) != header {
			continue
		}
		j := i + 1
		for ; j < len(lines); j++ {
			t := strings.TrimSpace(lines[j])
			if strings.HasPrefix(t, "[") {
				break
			}
			if name, _, ok := strings.Cut(t, "="); ok && strings.TrimSpace(name) == field {
				lines[j] = line
				return strings.Join(lines, "\n")
			}
		}
		lines = append(lines[:i+1], append([]string{line}, lines[i+1:]...)...)
		return strings.Join(lines, "\n")
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	if text != "" {
		text += "\n"
	}
	return text + header + "\n" + line + "\n"
}

// tomlQuote writes s as a TOML basic string.
func tomlQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
