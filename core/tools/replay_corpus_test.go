package tools

import (
	"bufio"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/grovecli/grove/protocol"
)

// The replay corpus is real tool calls a Codex-trained model made in a
// recorded public Codex session, replayed in order against grove's
// registry as a GPT/Codex model's calls (see testdata/replay/README.md for
// the sources). Every call must be accepted (no unknown tool, no argument
// error), end as Codex's call ended (applied, or refused for the same
// reason class), change the same files, and answer in Codex's format.

// replayCall is one recorded call and what Codex answered.
type replayCall struct {
	CallID      string `json:"call_id"`
	Name        string `json:"name"`
	Type        string `json:"type"` // function_call | custom_tool_call
	Input       string `json:"input"`
	Arguments   string `json:"arguments"`
	CodexOutput string `json:"codex_output"`
}

func loadReplay(t *testing.T, name string) []replayCall {
	t.Helper()
	f := openCorpus(t, name)
	defer f.Close()
	var out []replayCall
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var c replayCall
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, c)
	}
	return out
}

// codexPatchFiles reads Codex's answer to a patch: whether it applied and
// the "A path" / "M path" / "D path" lines it listed.
func codexPatchFiles(out string) (ok bool, files []string) {
	var structured struct {
		Output string `json:"output"`
	}
	if json.Unmarshal([]byte(out), &structured) == nil && structured.Output != "" {
		out = structured.Output // Codex 0.60's JSON form
	}
	_, list, ok := strings.Cut(out, "Success. Updated the following files:\n")
	if !ok {
		return false, nil
	}
	for _, l := range strings.Split(strings.TrimSpace(list), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			files = append(files, l)
		}
	}
	return true, files
}

var codexExecHeader = regexp.MustCompile(`^Exit code: 0\nWall time: [0-9]+(\.[0-9])? seconds\nOutput:\nSuccess\. Updated the following files:\n`)

// heredocPatch is the patch of a shell_command `apply_patch <<'PATCH'`,
// which Codex intercepts and applies as apply_patch.
func heredocPatch(args string) string {
	var a struct {
		Command string `json:"command"`
	}
	_ = json.Unmarshal([]byte(args), &a)
	body := a.Command[strings.IndexByte(a.Command, '\n')+1:]
	return strings.TrimSuffix(strings.TrimRight(body, "\n"), "PATCH")
}

// outsideFile are calls that update a file the user wrote outside the
// recorded session (export_codex_session.py, which no call created): on
// the replayed workspace the right answer is grove's refusal naming it.
var outsideFile = map[string]string{
	"call_fyCltdy2WzO23hNul5InaWZS": "export_codex_session.py", "call_20VBt0VxOKV89CCCpvNgf5uk": "export_codex_session.py",
	"call_fVxmf5Tfbc5Cw2SkZt4HSP0y": "export_codex_session.py", "call_Potbi2HuXbFP3N8PswWHNBQ8": "export_codex_session.py",
	"call_gIPTGiLERVTIVl7oDxTiDl34": "export_codex_session.py", "call_szwihs3ONc4OBfjTfyFm9ty9": "export_codex_session.py",
}

func TestReplayCorpusRtchess(t *testing.T) {
	calls := loadReplay(t, "rtchess-019aad50.jsonl")
	r := coreRegistry(t)
	env := testEnv(t)
	env.Family = FamilyCodex
	accepted := 0
	for i, c := range calls {
		var res Result
		switch {
		case c.Name == "apply_patch" && c.Type == "custom_tool_call":
			res = r.Run(t.Context(), env, "apply_patch", json.RawMessage(protocol.WrapCustomInput(c.Input)))
		case c.Name == "shell_command":
			res = r.Run(t.Context(), env, "apply_patch", json.RawMessage(protocol.WrapCustomInput(heredocPatch(c.Arguments))))
		default:
			res = r.Run(t.Context(), env, c.Name, json.RawMessage(c.Arguments))
		}
		if why := replayMismatch(c, res); why != "" {
			t.Errorf("call %d (%s %s): %s\n grove: %.300q\n codex: %.300q", i+1, c.Name, c.CallID, why, res.Output, c.CodexOutput)
			continue
		}
		accepted++
	}
	t.Logf("replayed %d real calls of session 019aad50 (gpt-5.1-codex-max): %d accepted and answered as Codex did", len(calls), accepted)
}

// replayMismatch says how grove's answer differs from Codex's ("" when it
// matches).
func replayMismatch(c replayCall, res Result) string {
	if strings.Contains(res.Output, "unknown tool") || strings.Contains(res.Output, "invalid arguments") {
		return "not accepted"
	}
	if f, ok := outsideFile[c.CallID]; ok {
		if !res.IsError || !strings.Contains(res.Output, f+": cannot update: no such file") {
			return "a call on a file from outside the session was not refused naming it"
		}
		return ""
	}
	if c.Name == "update_plan" {
		if res.IsError || res.Output != c.CodexOutput {
			return "update_plan answered differently"
		}
		return ""
	}
	codexOK, codexFiles := codexPatchFiles(c.CodexOutput)
	switch {
	case codexOK != !res.IsError:
		return "outcome differs"
	case !codexOK:
		return "" // both refused the patch; nothing changed
	case !codexExecHeader.MatchString(res.Output):
		return "not in Codex's exec format"
	}
	_, groveFiles := codexPatchFiles(res.Output)
	if strings.Join(groveFiles, "\n") != strings.Join(codexFiles, "\n") {
		return "changed other files: " + strings.Join(groveFiles, ", ") + " vs " + strings.Join(codexFiles, ", ")
	}
	return ""
}
