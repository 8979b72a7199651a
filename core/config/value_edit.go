package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
)

// ValueEdit sets one dotted key of config.toml (Codex's ConfigEdit, the
// unit of config/value/write and config/batchWrite). A nil Value removes
// the key; an object Value replaces the table, or with Upsert merges into
// it.
type ValueEdit struct {
	KeyPath string
	Value   any
	Upsert  bool
}

// EditError is an edit refused; Code is Codex's ConfigWriteErrorCode.
type EditError struct {
	Code    string
	Message string
}

func (e *EditError) Error() string { return e.Message }

// EditValues applies edits to the config.toml at path line by line — the
// other keys and the comments stay as written (the toml package cannot
// edit in place) — checks that the result decodes to exactly the values
// asked for, and replaces the file atomically. It returns the new content.
func EditValues(path string, edits []ValueEdit) ([]byte, error) {
	return EditValuesChecked(path, edits, nil)
}

// EditValuesChecked is EditValues that first hands the new content to
// check (nil: none): a refusal leaves the file as it was. The app-server
// loads it as a new thread would, so a write never leaves a config that
// breaks the next thread (Codex validates the edited config before it
// persists it).
func EditValuesChecked(path string, edits []ValueEdit, check func([]byte) error) ([]byte, error) {
	data, _, err := readTree(path)
	if err != nil {
		return nil, err
	}
	lines := strings.SplitAfter(string(data), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for _, e := range edits {
		segs, err := checkEdit(e)
		if err != nil {
			return nil, err
		}
		if lines, err = applyEdit(lines, segs, e); err != nil {
			return nil, err
		}
	}
	out := []byte(strings.Join(lines, ""))
	if err := verifyEdits(out, edits); err != nil {
		return nil, err
	}
	if check != nil {
		if err := check(out); err != nil {
			return nil, &EditError{"configValidationError", "Invalid configuration: " + err.Error()}
		}
	}
	if err := replaceConfigFile(path, out, filepath.Dir(path)); err != nil {
		return nil, err
	}
	return out, nil
}

var bareKey = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// checkEdit refuses a key path that is not bare dotted keys, a key grove
// neither reads nor knows as Codex's, and a value of the wrong type.
func checkEdit(e ValueEdit) ([]string, error) {
	segs := strings.Split(e.KeyPath, ".")
	for _, s := range segs {
		if !bareKey.MatchString(s) {
			return nil, &EditError{"configValidationError", fmt.Sprintf("invalid key path %q: each segment must be a bare TOML key", e.KeyPath)}
		}
	}
	if e.Value == nil {
		return segs, nil
	}
	tree := map[string]any{}
	cur := tree
	for _, s := range segs[:len(segs)-1] {
		next := map[string]any{}
		cur[s] = next
		cur = next
	}
	cur[segs[len(segs)-1]] = e.Value
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(tree); err != nil {
		return nil, &EditError{"configValidationError", fmt.Sprintf("invalid value for %s: %v", e.KeyPath, err)}
	}
	var c Config
	md, err := toml.Decode(buf.String(), &c)
	if err != nil {
		return nil, &EditError{"configValidationError", fmt.Sprintf("invalid value for %s: %s", e.KeyPath, withoutLine(err))}
	}
	for _, k := range md.Undecoded() {
		if len(k) > 1 && k[0] == "hooks" {
			continue // core/hooks reads [hooks] itself
		}
		if _, ok := codexKeyFor(k); !ok {
			return nil, &EditError{"configSchemaUnknownKey", fmt.Sprintf("unknown config key: %s", k.String())}
		}
	}
	return segs, nil
}

// entry is one `key = value` of the file: its lines and full dotted path.
type entry struct {
	from, to int // lines[from:to]
	path     string
	header   int // the line of its table's header, -1 at the root
}

var (
	headerLine = regexp.MustCompile(`^\s*\[\s*([A-Za-z0-9_.\- ]+?)\s*\]\s*(#.*)?$`)
	anyHeader  = regexp.MustCompile(`^\s*\[`)
	keyLine    = regexp.MustCompile(`^\s*([A-Za-z0-9_.\- ]+?)\s*=`)
)

// scan finds the tables (header line index by path) and the entries. A
// value spanning lines (a multi-line array or string) is one entry; an
// array of tables is opaque (its keys match no path).
func scan(lines []string) (headers map[string]int, entries []entry) {
	headers = map[string]int{}
	table, header := "", -1
	for i := 0; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], "\r\n")
		if m := headerLine.FindStringSubmatch(l); m != nil && !strings.HasPrefix(strings.TrimSpace(l), "[[") {
			table = strings.ReplaceAll(m[1], " ", "")
			headers[table], header = i, i
			continue
		}
		if anyHeader.MatchString(l) {
			table, header = "[[", i // keys of an array of tables are not addressed
			continue
		}
		m := keyLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		end := i + 1
		for end < len(lines) && !decodes(lines[i:end]) && !anyHeader.MatchString(lines[end]) {
			end++
		}
		path := strings.ReplaceAll(m[1], " ", "")
		if table != "" {
			path = table + "." + path
		}
		entries = append(entries, entry{from: i, to: end, path: path, header: header})
		i = end - 1
	}
	return headers, entries
}

func decodes(lines []string) bool {
	var v map[string]any
	_, err := toml.Decode(strings.Join(lines, ""), &v)
	return err == nil
}

// applyEdit removes what the edit replaces, then writes its leaves.
func applyEdit(lines []string, segs []string, e ValueEdit) ([]string, error) {
	full := strings.Join(segs, ".")
	obj, isObj := e.Value.(map[string]any)
	if e.Value == nil || (isObj && !e.Upsert) {
		// A scalar is replaced where it stands (setLeaf), keeping its
		// place and trailing lines.
		lines = removePath(lines, full, e.Value == nil)
	}
	if e.Value == nil {
		return lines, nil
	}
	if !isObj {
		return setLeaf(lines, segs, e.Value)
	}
	var err error
	for _, leaf := range leaves(segs, obj) {
		if lines, err = setLeaf(lines, leaf.segs, leaf.value); err != nil {
			return nil, err
		}
	}
	return lines, nil
}

type leaf struct {
	segs  []string
	value any
}

// leaves flattens an object value into its non-table values.
func leaves(prefix []string, obj map[string]any) []leaf {
	var out []leaf
	for _, k := range sortedKeys(obj) {
		p := append(append([]string(nil), prefix...), k)
		if sub, ok := obj[k].(map[string]any); ok {
			out = append(out, leaves(p, sub)...)
			continue
		}
		out = append(out, leaf{p, obj[k]})
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// removePath deletes the entries at or under path, and the headers of the
// tables under it (with dropHeader, the table's own header too).
func removePath(lines []string, path string, dropHeader bool) []string {
	headers, entries := scan(lines)
	drop := map[int]bool{}
	for _, en := range entries {
		if en.path == path || strings.HasPrefix(en.path, path+".") {
			for i := en.from; i < en.to; i++ {
				drop[i] = true
			}
		}
	}
	for t, i := range headers {
		if strings.HasPrefix(t, path+".") || (dropHeader && t == path) {
			drop[i] = true
		}
	}
	out := lines[:0:0]
	for i, l := range lines {
		if !drop[i] {
			out = append(out, l)
		}
	}
	return out
}

// setLeaf replaces the entry at segs, else adds it to its table (the
// root's keys go before the first header), else appends the table.
func setLeaf(lines []string, segs []string, v any) ([]string, error) {
	val, err := encodeValue(v)
	if err != nil {
		return nil, err
	}
	key, table := segs[len(segs)-1], strings.Join(segs[:len(segs)-1], ".")
	line := key + " = " + val + "\n"
	headers, entries := scan(lines)
	full := strings.Join(segs, ".")
	for _, en := range entries {
		if en.path == full {
			if en.to == en.from+1 {
				line = key + " = " + val + trailingComment(lines[en.from]) + "\n"
			}
			return splice(lines, en.from, en.to, line), nil
		}
	}
	at, ok := -1, false
	if table == "" {
		at, ok = len(lines), true
		for i, l := range lines {
			if anyHeader.MatchString(l) {
				at = i
				break
			}
		}
		for at > 0 && strings.TrimSpace(lines[at-1]) == "" {
			at-- // keep the blank line before the first table
		}
	} else if h, found := headers[table]; found {
		at, ok = h+1, true
		for _, en := range entries {
			if en.header == h && en.to > at {
				at = en.to
			}
		}
	}
	if ok {
		if at > 0 && !strings.HasSuffix(lines[at-1], "\n") {
			lines[at-1] += "\n"
		}
		return splice(lines, at, at, line), nil
	}
	if n := len(lines); n > 0 {
		if !strings.HasSuffix(lines[n-1], "\n") {
			lines[n-1] += "\n"
		}
		if strings.TrimSpace(lines[n-1]) != "" {
			lines = append(lines, "\n")
		}
	}
	return append(lines, "["+table+"]\n", line), nil
}

// trailingComment is a one-line entry's ` # comment` (found where the
// text before a '#' decodes, so a '#' inside a string is not one).
func trailingComment(line string) string {
	l := strings.TrimRight(line, "\r\n")
	for i := strings.IndexByte(l, '#'); i >= 0; {
		if decodes([]string{l[:i] + "\n"}) {
			return " " + strings.TrimSpace(l[i:])
		}
		j := strings.IndexByte(l[i+1:], '#')
		if j < 0 {
			break
		}
		i += j + 1
	}
	return ""
}

func splice(lines []string, from, to int, repl string) []string {
	out := append([]string(nil), lines[:from]...)
	out = append(out, repl)
	return append(out, lines[to:]...)
}

// encodeValue writes one TOML value (an array of tables has no inline
// form this editor writes).
func encodeValue(v any) (string, error) {
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(map[string]any{"v": v}); err != nil {
		return "", &EditError{"configValidationError", fmt.Sprintf("invalid value: %v", err)}
	}
	s := strings.TrimSpace(buf.String())
	if !strings.HasPrefix(s, "v = ") || strings.Contains(s, "\n") {
		return "", &EditError{"configValidationError", "invalid value: tables inside arrays cannot be written"}
	}
	return strings.TrimPrefix(s, "v = "), nil
}

// verifyEdits decodes the edited file and checks each key holds the value
// asked for: a file this line editor cannot follow (quoted keys, dotted
// keys defining a table) is refused rather than written wrong.
func verifyEdits(out []byte, edits []ValueEdit) error {
	tree := map[string]any{}
	if _, err := toml.Decode(string(out), &tree); err != nil {
		return &EditError{"configValidationError", fmt.Sprintf("the edit cannot be made in place: %s", withoutLine(err))}
	}
	for _, e := range edits {
		got, present := lookup(tree, strings.Split(e.KeyPath, "."))
		if e.Value == nil {
			if present {
				return &EditError{"configValidationError", fmt.Sprintf("the edit cannot be made in place: %s is still set", e.KeyPath)}
			}
			continue
		}
		want := e.Value
		if obj, ok := e.Value.(map[string]any); ok && e.Upsert {
			if gm, ok := got.(map[string]any); ok {
				want = mergedCopy(gm, obj)
			}
		}
		if !sameJSON(got, want) {
			return &EditError{"configValidationError", fmt.Sprintf("the edit cannot be made in place: %s reads back as %v", e.KeyPath, got)}
		}
	}
	return nil
}

func lookup(tree map[string]any, segs []string) (any, bool) {
	var cur any = tree
	for _, s := range segs {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[s]; !ok {
			return nil, false
		}
	}
	return cur, true
}

func mergedCopy(got, obj map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range got {
		out[k] = v
	}
	for k, v := range obj {
		out[k] = v
	}
	return out
}

func sameJSON(a, b any) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	if err1 != nil || err2 != nil {
		return false
	}
	var va, vb any
	_ = json.Unmarshal(ja, &va)
	_ = json.Unmarshal(jb, &vb)
	return reflect.DeepEqual(va, vb)
}
