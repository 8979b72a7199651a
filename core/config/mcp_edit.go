package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"

	"github.com/BurntSushi/toml"
)

// AddMCPServer appends a `[mcp_servers.<name>]` table to home/config.toml
// (the rest of the file, comments included, is left as it is). A name that
// is already configured is an error.
func AddMCPServer(home, name string, s MCPServer) (string, error) {
	if err := s.Validate(name); err != nil {
		return "", err
	}
	path := filepath.Join(home, "config.toml")
	data, tree, err := readTree(path)
	if err != nil {
		return "", err
	}
	if servers, _ := tree["mcp_servers"].(map[string]any); servers != nil {
		if _, dup := servers[name]; dup {
			return "", fmt.Errorf("MCP server %s is already in %s (remove it first)", name, path)
		}
	}
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(map[string]map[string]MCPServer{"mcp_servers": {name: s}}); err != nil {
		return "", fmt.Errorf("encode MCP server %s: %w", name, err)
	}
	out := append([]byte(nil), data...)
	if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n")) {
		out = append(out, '\n')
	}
	if len(out) > 0 {
		out = append(out, '\n')
	}
	// The encoder writes an empty [mcp_servers] parent table first; the
	// dotted header alone is enough and keeps the file tidy.
	enc := strings.Replace(buf.String(), "[mcp_servers]\n", "", 1)
	out = append(out, strings.TrimLeft(enc, "\n")...)
	if err := replaceConfigFile(path, out, home); err != nil {
		return "", err
	}
	return path, nil
}

// RemoveMCPServer deletes the `[mcp_servers.<name>]` table (and its
// sub-tables such as `[mcp_servers.<name>.env]`) from home/config.toml and
// checks that nothing else changed.
func RemoveMCPServer(home, name string) (string, error) {
	path := filepath.Join(home, "config.toml")
	data, tree, err := readTree(path)
	if err != nil {
		return "", err
	}
	servers, _ := tree["mcp_servers"].(map[string]any)
	if _, ok := servers[name]; !ok {
		return "", fmt.Errorf("no MCP server %s in %s", name, path)
	}
	header := regexp.MustCompile(`^\s*\[\s*mcp_servers\s*\.\s*("` + regexp.QuoteMeta(name) + `"|'` + regexp.QuoteMeta(name) + `'|` + regexp.QuoteMeta(name) + `)\s*(\]|\.)`)
	anyHeader := regexp.MustCompile(`^\s*\[`)
	var out []string
	skipping := false
	for _, line := range strings.SplitAfter(string(data), "\n") {
		switch {
		case header.MatchString(line):
			skipping = true
			continue
		case anyHeader.MatchString(line):
			skipping = false
		}
		if !skipping {
			out = append(out, line)
		}
	}
	edited := []byte(strings.Join(out, ""))
	var after map[string]any
	if _, err := toml.Decode(string(edited), &after); err != nil {
		return "", fmt.Errorf("remove MCP server %s: the edited %s would not parse (%v); edit it by hand", name, path, err)
	}
	want := tree
	delete(servers, name)
	if len(servers) == 0 {
		if s, ok := after["mcp_servers"].(map[string]any); ok && len(s) == 0 {
			delete(after, "mcp_servers")
		}
		delete(want, "mcp_servers")
	}
	if !reflect.DeepEqual(after, want) {
		return "", fmt.Errorf("remove MCP server %s: it is not defined as a [mcp_servers.%s] table in %s; edit it by hand", name, name, path)
	}
	if err := replaceConfigFile(path, edited, home); err != nil {
		return "", err
	}
	return path, nil
}

func readTree(path string) ([]byte, map[string]any, error) {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, nil, fmt.Errorf("read %s: %w", path, err)
	}
	tree := map[string]any{}
	if _, err := toml.Decode(string(data), &tree); err != nil {
		return nil, nil, fmt.Errorf("config %s: %w", path, err)
	}
	return data, tree, nil
}

// replaceConfigFile replaces the file atomically, keeping its permissions.
func replaceConfigFile(path string, data []byte, home string) error {
	if err := os.MkdirAll(home, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", home, err)
	}
	mode := os.FileMode(0o600)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	tmp, err := os.CreateTemp(home, ".config.toml.*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
