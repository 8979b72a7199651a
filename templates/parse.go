package templates

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

var personaMarker = regexp.MustCompile(`(?m)^[ \t]*<!--[ \t]*agent_name:[ \t]*([^ \t>]+?)[ \t]*-->[ \t]*$`)

// Parse reads one template file; the agent_type is the file stem (or, for
// a Claude Code file, its valid `name`).
func Parse(path string, data []byte) (*Template, error) {
	return parse(path, data, Options{})
}

func parse(path string, data []byte, opts Options) (*Template, error) {
	text := strings.TrimPrefix(string(data), "\ufeff")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	if isYAMLFile(path) {
		return parseTaskDefinition(path, []byte(text), "", 0, opts)
	}
	fm, body, fmLine, bodyLine, err := splitFrontmatter(text)
	if err != nil {
		line := 1
		if err != errNoFrontmatter {
			line = strings.Count(text, "\n") + 1
		}
		return nil, &ParseError{Path: path, Line: line, Msg: err.Error()}
	}
	fields, warnings, err := readFrontmatter(path, fm)
	if err != nil {
		return nil, err
	}
	if IsTaskFrontmatter(fields) {
		return parseTaskDefinition(path, []byte(fm), body, fmLine-1, opts)
	}
	lines := keyLines(fm, fmLine)
	if err := checkNearMissKeys(path, fields, lines); err != nil {
		return nil, err
	}
	t := &Template{Source: path, Warnings: warnings}
	stem := strings.TrimSuffix(filepath.Base(strings.TrimPrefix(path, "embedded:")), filepath.Ext(path))
	_, hasNames := fields["agent_names"]
	_, hasAllow := fields["allow_list"]
	_, hasName := fields["name"]
	_, hasTools := fields["tools"]
	_, hasColor := fields["color"]
	if (hasName || hasTools || hasColor) && !hasNames && !hasAllow {
		t.Format = "claude"
	} else {
		t.Format = "grove"
	}
	t.AgentType = stem
	if t.Format == "claude" {
		if n := str(fields["name"]); n != "" {
			if v, err := ValidateAgentType(n); err == nil {
				t.AgentType = v
			}
		}
	}
	if v, err := ValidateAgentType(t.AgentType); err == nil {
		t.AgentType = v
	} else {
		return nil, &ParseError{Path: path, Line: 1, Msg: err.Error()}
	}
	t.Description = strings.TrimSpace(str(fields["description"]))
	t.ReasoningEffort = str(fields["reasoning_effort"])
	t.Color = str(fields["color"])
	t.Surface = strings.ToLower(strings.TrimSpace(str(fields["surface"])))
	t.Host = strings.TrimSpace(str(fields["host"]))
	if v, ok := fields["read_only"]; ok {
		ro, err := readOnlyValue(v)
		if err != nil {
			return nil, &ParseError{Path: path, Line: lines["read_only"], Msg: err.Error()}
		}
		t.ReadOnly = ro
	}
	model := str(fields["model"])
	if t.Format == "claude" {
		t.Model, t.Warnings = mapClaudeModel(path, model, opts.ModelAliases, t.Warnings)
		if tools, ok := fields["tools"]; ok {
			t.AllowList, t.Warnings = mapClaudeTools(path, list(tools), t.Warnings)
		}
		if dis, ok := fields["disallowedTools"]; ok {
			t.DenyList, t.Warnings = mapClaudeTools(path, list(dis), t.Warnings)
		}
	} else {
		t.Model = model
		t.AllowList = list(fields["allow_list"])
		t.DenyList = list(fields["deny_list"])
	}
	t.noToolsIfAllowListEmpty(fields, lines)
	for _, raw := range listOfMaps(fields["agent_names"]) {
		p := Persona{Name: str(raw["name"]), Description: str(raw["description"]), Model: str(raw["model"]), ReasoningEffort: str(raw["reasoning_effort"])}
		if p.Name == "" {
			return nil, &ParseError{Path: path, Line: 1, Msg: "an agent_names entry has no name"}
		}
		t.Personas = append(t.Personas, p)
	}
	if err := splitPersonas(t, body, bodyLine); err != nil {
		return nil, err
	}
	return t, nil
}

// splitFrontmatter separates `---` frontmatter from the body; fmLine and
// bodyLine are the file lines where each starts.
func splitFrontmatter(text string) (fm, body string, fmLine, bodyLine int, err error) {
	lines := strings.Split(text, "\n")
	i := 0
	for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	if i >= len(lines) || strings.TrimSpace(lines[i]) != "---" {
		return "", "", 0, 0, errNoFrontmatter
	}
	for j := i + 1; j < len(lines); j++ {
		if t := strings.TrimSpace(lines[j]); t == "---" || t == "..." {
			return strings.Join(lines[i+1:j], "\n"), strings.Join(lines[j+1:], "\n"), i + 2, j + 2, nil
		}
	}
	return "", "", 0, 0, fmt.Errorf("frontmatter opened with --- on line %d is never closed", i+1)
}

// readFrontmatter parses strictly with YAML first, then falls back to a
// tolerant key-by-key reader, recording what it assumed.
func readFrontmatter(path, fm string) (map[string]any, []string, error) {
	var m map[string]any
	strictErr := yaml.Unmarshal([]byte(fm), &m)
	if strictErr == nil {
		if m == nil {
			m = map[string]any{}
		}
		return m, nil, nil
	}
	m, warnings, err := tolerantRead(path, fm)
	if err != nil {
		return nil, nil, err
	}
	warnings = append([]string{fmt.Sprintf("%s: frontmatter is not strict YAML (%s); read it key by key", path, firstLine(strictErr.Error()))}, warnings...)
	return m, warnings, nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// splitPersonas fills DefaultPrompt and each persona's Prompt, checking
// that declared personas and blocks match.
func splitPersonas(t *Template, body string, bodyLine int) error {
	locs := personaMarker.FindAllStringSubmatchIndex(body, -1)
	end := len(body)
	if len(locs) > 0 {
		end = locs[0][0]
	}
	t.DefaultPrompt = strings.TrimSpace(body[:end])
	blocks := map[string]string{}
	for i, l := range locs {
		name := body[l[2]:l[3]]
		stop := len(body)
		if i+1 < len(locs) {
			stop = locs[i+1][0]
		}
		if _, dup := blocks[name]; dup {
			return &ParseError{Path: t.Source, Line: bodyLine + strings.Count(body[:l[0]], "\n"), Msg: fmt.Sprintf("persona block %q appears twice", name)}
		}
		blocks[name] = strings.TrimSpace(body[l[1]:stop])
		declared := false
		for _, p := range t.Personas {
			declared = declared || p.Name == name
		}
		if !declared {
			return &ParseError{Path: t.Source, Line: bodyLine + strings.Count(body[:l[0]], "\n"), Msg: fmt.Sprintf("persona block %q is not declared in agent_names", name)}
		}
	}
	for i := range t.Personas {
		prompt, ok := blocks[t.Personas[i].Name]
		if !ok {
			return &ParseError{Path: t.Source, Line: 1, Msg: fmt.Sprintf("persona %q is declared in agent_names but has no <!-- agent_name: %s --> block", t.Personas[i].Name, t.Personas[i].Name)}
		}
		t.Personas[i].Prompt = prompt
	}
	return nil
}

// Field helpers over the generic frontmatter map.

func str(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return strings.TrimSpace(x)
	default:
		return strings.TrimSpace(fmt.Sprint(x))
	}
}

// list accepts a YAML list or a comma-separated string.
func list(v any) []string {
	var out []string
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			if s := str(e); s != "" {
				out = append(out, s)
			}
		}
	case []string:
		for _, s := range x {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	case string:
		s := strings.TrimSpace(x)
		s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
		for _, e := range strings.Split(s, ",") {
			if e = strings.Trim(strings.TrimSpace(e), `"'`); e != "" {
				out = append(out, e)
			}
		}
	}
	return out
}

func listOfMaps(v any) []map[string]any {
	var out []map[string]any
	if x, ok := v.([]any); ok {
		for _, e := range x {
			switch m := e.(type) {
			case map[string]any:
				out = append(out, m)
			case string:
				out = append(out, map[string]any{"name": m})
			}
		}
	}
	return out
}

// isYAMLFile reports a seed-004 YAML definition file.
func isYAMLFile(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	return ext == ".yaml" || ext == ".yml"
}
