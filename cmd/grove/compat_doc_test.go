package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/grovecli/grove/core/config"
	"github.com/grovecli/grove/core/testkit"
)

// renderCodexCompat writes docs/codex-compat.md from the tables.
func renderCodexCompat() string {
	var b strings.Builder
	b.WriteString(`# Codex compatibility

What of Codex a user brings to grove works unchanged. Generated from the
tables the tests check (` + "`config.CodexKeys`" + ` in core/config/codex_keys.go,
` + "`codexExecFlags`, `codexEventRows` and `appServerMethodRows`" + ` in
cmd/grove/compat.go) by ` + "`go test ./cmd/grove -run TestCodexCompatDoc -update`" + `;
do not edit by hand.

- **works**: same name, same meaning.
- **differs**: accepted; the note says how grove's behaviour differs.
- **not yet**: accepted (a config key is named in one startup line), not used.

## Config

grove reads ` + "`$GROVE_HOME/config.toml`" + ` (default ` + "`~/.grove`" + `); when it does not exist,
it reads Codex's ` + "`$CODEX_HOME/config.toml`" + ` (default ` + "`~/.codex`" + `) and says so once,
along with Codex's global ` + "`AGENTS.md`" + `. Every key of Codex's config schema
(core/config/testdata/codex/config.schema.json) loads without an error. A
` + "`*`" + ` is a name you choose; a key ending in ` + "`.*`" + ` or marked *(table)* covers the keys
under it.

`)
	writeTable(&b, "Key", keyRows())
	b.WriteString("\n## `grove exec` flags\n\nCodex's `codex exec` flags, same spelling. grove's own: `--demo`, `--approve-workdirs`, `--resume ID`, `--fork`, `--json=grove` / `--events`.\n\n")
	writeTable(&b, "Flag", codexExecFlags)
	b.WriteString("\n## `--json` events\n\n`grove exec --json` prints Codex's JSONL, one event per line, so `jq` recipes and the TypeScript SDK written for `codex exec` read it. Items are the root agent's; a sub-agent's work appears as its collab_tool_call. `--json=grove` (or `--events`) prints grove's own, richer events instead (docs/events.md).\n\n")
	writeTable(&b, "Event", codexEventRows)
	b.WriteString("\nCodex's unit tests of this mapping, codex-rs/exec/tests/event_processor_with_json_output.rs (20 cases), are ported in cmd/grove/codex_jsonl_ported_test.go, each named by its Codex test; all pass, with the differences above. grove ends only a turn it saw start (its engine always starts one), so the ported cases that end a turn begin with turn.started. From codex-rs/exec/src/event_processor_with_jsonl_output_tests.rs, `-o` after a failed turn is ported (TestCodexExecFailedTurnDoesNotOverwriteOutputLastMessageFile: the file is left as it was; a completed turn without a message writes it empty with Codex's warning); not ported: an MCP result's `_meta` (grove keeps only an MCP result's text).\n")
	b.WriteString("\n## App-server methods\n\nCodex's app-server methods and what `grove app-server` answers (docs/app-server.md).\n\n")
	if len(appServerMethodRows) == 0 {
		b.WriteString("Every app-server method, ACP method and MCP client feature, with works / differs / not yet, is in [codex-compat-servers.md](codex-compat-servers.md), generated from the tables the server tests check.\n")
	} else {
		writeTable(&b, "Method", appServerMethodRows)
	}
	b.WriteString("\n## Exec conformance\n\nCodex's own `codex exec` integration tests (openai/codex codex-rs/exec/tests/suite), ported case by case to `grove exec` against the in-process Responses mock (cmd/grove/codex_exec_conformance_test.go, each test naming its Codex file and test). **works**: ported and passing; **differs**: ported, grove does it differently on purpose; **not yet**: not ported, with the reason.\n\n")
	writeTable(&b, "Codex test", execConformance)
	return b.String()
}

func keyRows() []compatRow {
	rows := make([]compatRow, 0, len(config.CodexKeys))
	for _, k := range config.CodexKeys {
		name := "`" + k.Key + "`"
		if k.Section && !strings.HasSuffix(k.Key, "*") {
			name += " *(table)*"
		}
		rows = append(rows, compatRow{Name: name, Status: k.Status, Note: k.Note})
	}
	return rows
}

func writeTable(b *strings.Builder, head string, rows []compatRow) {
	fmt.Fprintf(b, "| %s | Status | Notes |\n| --- | --- | --- |\n", head)
	for _, r := range rows {
		name := r.Name
		if !strings.HasPrefix(name, "`") {
			name = "`" + name + "`"
		}
		fmt.Fprintf(b, "| %s | %s | %s |\n", name, r.Status, strings.ReplaceAll(r.Note, "|", "\\|"))
	}
}

// TestCodexCompatDoc: docs/codex-compat.md is what the tables say.
func TestCodexCompatDoc(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "codex-compat.md")
	doc := renderCodexCompat()
	if testkit.UpdateGolden() {
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != doc {
		t.Fatalf("%s is out of date (%v): run go test ./cmd/grove -run TestCodexCompatDoc -update", path, err)
	}
}

// TestCodexExecFlagsTable: every flag the table calls works or differs is
// one grove exec accepts, and every flag grove exec has is in the table
// or is grove's own.
func TestCodexExecFlagsTable(t *testing.T) {
	root := newRootCmd()
	exec, _, err := root.Find([]string{"exec"})
	if err != nil {
		t.Fatal(err)
	}
	resume, _, _ := exec.Find([]string{"resume"})
	lookup := func(name string) bool {
		for _, fs := range []*pflag.FlagSet{exec.PersistentFlags(), exec.Flags(), root.PersistentFlags(), resume.Flags()} {
			if strings.HasPrefix(name, "--") && fs.Lookup(strings.TrimPrefix(name, "--")) != nil {
				return true
			}
			if len(name) == 2 && name[0] == '-' && fs.ShorthandLookup(name[1:]) != nil {
				return true
			}
		}
		return false
	}
	listed := map[string]bool{}
	for _, r := range codexExecFlags {
		for _, part := range strings.Split(r.Name, ", ") {
			flag := strings.Fields(part)[0]
			listed[flag] = true
			if !strings.HasPrefix(flag, "-") || r.Status == config.KeyNotYet {
				continue
			}
			if flag != "--version" && !lookup(flag) {
				t.Errorf("%s is %s in the table but grove exec has no such flag", flag, r.Status)
			}
		}
		if strings.HasPrefix(r.Name, "resume --last") && resume.Flags().Lookup("last") == nil && exec.PersistentFlags().Lookup("last") == nil {
			t.Error("exec resume has no --last")
		}
	}
	own := map[string]bool{"--demo": true, "--approve-workdirs": true, "--resume": true, "--fork": true, "--host": true, "--events": true, "--ask-for-approval": true, "--keep-demo-dir": true, "--debug": true, "--help": true, "--last": true}
	check := func(f *pflag.Flag) {
		if !listed["--"+f.Name] && !own["--"+f.Name] {
			t.Errorf("grove exec's --%s is neither in codexExecFlags nor one of grove's own flags", f.Name)
		}
	}
	exec.PersistentFlags().VisitAll(check)
	root.PersistentFlags().VisitAll(check)
}

// TestCodexEventTable: the table names every event and item type Codex's
// exec_events.rs has (codexShapes).
func TestCodexEventTable(t *testing.T) {
	var all strings.Builder
	for _, r := range codexEventRows {
		all.WriteString(r.Name + "\n")
	}
	for name := range codexShapes {
		name = strings.TrimPrefix(name, "item:")
		if name == "usage" {
			continue
		}
		if !strings.Contains(all.String(), name) {
			t.Errorf("Codex's %s is not in codexEventRows", name)
		}
	}
}
