package tools

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/tools/schema"
)

// ClaudeNotebookEdit is Claude Code's notebook cell editor.
const ClaudeNotebookEdit = "NotebookEdit"

type claudeNotebookEdit struct{ reads *readState }

// claudeNotebookEditArgs are NotebookEdit's arguments (Claude Code's names).
type claudeNotebookEditArgs struct {
	NotebookPath string `json:"notebook_path" required:"true" jsonschema:"The absolute path to the Jupyter notebook file to edit (must be absolute, not relative)"`
	CellID       string `json:"cell_id" jsonschema:"The ID of the cell to edit. When inserting a new cell, the new cell will be inserted after the cell with this ID, or at the beginning if not specified."`
	NewSource    string `json:"new_source" required:"true" jsonschema:"The new source for the cell"`
	CellType     string `json:"cell_type" enum:"code,markdown" jsonschema:"The type of the cell (code or markdown). If not specified, it defaults to the current cell type. If using edit_mode=insert, this is required."`
	EditMode     string `json:"edit_mode" enum:"replace,insert,delete" jsonschema:"The type of edit to make (replace, insert, delete). Defaults to replace."`
}

const claudeNotebookEditDesc = `Completely replaces the contents of a specific cell in a Jupyter notebook (.ipynb file) with new source. Jupyter notebooks are interactive documents that combine code, text, and visualizations, commonly used for data analysis and scientific computing. The notebook_path parameter must be an absolute path, not a relative path. The cell_id is the ID of the cell to edit (as Read shows it). Use edit_mode=insert to add a new cell after the cell with that ID (at the beginning without one). Use edit_mode=delete to delete the cell. You must Read the notebook before editing it.`

func (claudeNotebookEdit) Spec() model.ToolSpec {
	return model.ToolSpec{Name: ClaudeNotebookEdit, Description: claudeNotebookEditDesc, Parameters: schema.MustObject(claudeNotebookEditArgs{})}
}

// plan computes the notebook's new text through the same file change as
// Write and Edit; a refusal comes back as the result.
func (t claudeNotebookEdit) plan(ctx context.Context, env *Env, raw json.RawMessage) (fileChange, *Result) {
	fail := func(format string, args ...any) (fileChange, *Result) {
		r := Errorf(format, args...)
		return fileChange{}, &r
	}
	var a claudeNotebookEditArgs
	if err := decode(ClaudeNotebookEdit, raw, &a); err != nil {
		return fail("%v", err)
	}
	if a.NotebookPath == "" {
		return fail(`invalid arguments for NotebookEdit: field "notebook_path" is required`)
	}
	abs := resolvePath(env.Cwd, a.NotebookPath)
	if !strings.HasSuffix(strings.ToLower(abs), ".ipynb") {
		return fail("File must be a Jupyter notebook (.ipynb file). For editing other file types, use the Edit tool.")
	}
	old, st, exists, err := currentFile(ctx, env, abs)
	switch {
	case err != nil:
		return fail("NotebookEdit: %v", err)
	case !exists:
		return fail("Notebook file does not exist.")
	}
	if msg := t.reads.checkFresh(env.ThreadID, abs, readStamp{modTime: st.ModTime, size: st.Size}); msg != "" {
		return fail("%s", msg)
	}
	text, answer, err := editNotebook(old, a)
	if err != nil {
		return fail("%v", err)
	}
	return fileChange{tool: ClaudeNotebookEdit, abs: abs, old: &old, content: text, answer: func() string { return answer }}, nil
}

// editNotebook applies one cell edit to a notebook's JSON, keeping every
// other field; it is written back as Jupyter writes it (sorted keys, one
// space of indent).
func editNotebook(old string, a claudeNotebookEditArgs) (string, string, error) {
	var nb map[string]json.RawMessage
	var cells []map[string]json.RawMessage
	if err := json.Unmarshal([]byte(old), &nb); err != nil {
		return "", "", claudeToolError("Notebook is not valid JSON: %v", err)
	}
	if err := json.Unmarshal(nb["cells"], &cells); err != nil {
		return "", "", claudeToolError("Notebook has no valid cells: %v", err)
	}
	mode := a.EditMode
	if mode == "" {
		mode = "replace"
	}
	at := 0 // the cell's index; for insert, where the new cell goes
	if a.CellID != "" {
		i, ok := notebookCellIndex(cells, a.CellID)
		if !ok {
			return "", "", claudeToolError("Cell with ID %q not found in notebook.", a.CellID)
		}
		at = i
		if mode == "insert" {
			at++
		}
	} else if mode != "insert" {
		return "", "", claudeToolError("Cell ID must be specified when not inserting a new cell.")
	}
	if mode == "replace" && at == len(cells) {
		mode = "insert" // replacing one past the end adds a cell, as in Claude Code
	}
	src, _ := json.Marshal(a.NewSource)
	var answer string
	switch mode {
	case "delete":
		cells = append(cells[:at], cells[at+1:]...)
		answer = "Deleted cell " + a.CellID
	case "insert":
		if a.CellType == "" {
			return "", "", claudeToolError("Cell type is required when using edit_mode=insert.")
		}
		cell := map[string]json.RawMessage{"cell_type": mustRaw(a.CellType), "metadata": json.RawMessage("{}"), "source": src}
		id := ""
		if notebookHasCellIDs(nb) {
			id = newCellID()
			cell["id"] = mustRaw(id)
		}
		if a.CellType == "code" {
			cell["execution_count"], cell["outputs"] = json.RawMessage("null"), json.RawMessage("[]")
		}
		cells = append(cells[:at], append([]map[string]json.RawMessage{cell}, cells[at:]...)...)
		answer = fmt.Sprintf("Inserted cell %s with %s", cmp.Or(id, fmt.Sprintf("cell-%d", at)), a.NewSource)
	case "replace":
		cell := cells[at]
		cell["source"] = src
		if a.CellType != "" {
			cell["cell_type"] = mustRaw(a.CellType)
		}
		if string(cell["cell_type"]) == `"code"` {
			// Its old outputs no longer belong to the new source.
			cell["execution_count"], cell["outputs"] = json.RawMessage("null"), json.RawMessage("[]")
		} else {
			delete(cell, "execution_count")
			delete(cell, "outputs")
		}
		answer = fmt.Sprintf("Updated cell %s with %s", a.CellID, a.NewSource)
	default:
		return "", "", claudeToolError("Edit mode must be replace, insert, or delete.")
	}
	nb["cells"] = mustRaw(cells)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(nb); err != nil {
		return "", "", fmt.Errorf("NotebookEdit: %v", err)
	}
	return b.String(), answer, nil
}

// notebookCellIndex finds a cell by its id, or by the "cell-N" name Read
// gives a cell without one.
func notebookCellIndex(cells []map[string]json.RawMessage, id string) (int, bool) {
	for i, c := range cells {
		var cid string
		if json.Unmarshal(c["id"], &cid) == nil && cid == id {
			return i, true
		}
	}
	if n, err := strconv.Atoi(strings.TrimPrefix(id, "cell-")); err == nil && strings.HasPrefix(id, "cell-") && n >= 0 && n < len(cells) {
		return n, true
	}
	return 0, false
}

// notebookHasCellIDs: nbformat 4.5 and later give every cell an id.
func notebookHasCellIDs(nb map[string]json.RawMessage) bool {
	var major, minor int
	_ = json.Unmarshal(nb["nbformat"], &major)
	_ = json.Unmarshal(nb["nbformat_minor"], &minor)
	return major > 4 || (major == 4 && minor >= 5)
}

func newCellID() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func mustRaw(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

func (t claudeNotebookEdit) Gate(ctx context.Context, env *Env, raw json.RawMessage) (Gate, *Result) {
	c, r := t.plan(ctx, env, raw)
	if r != nil {
		return Gate{}, r
	}
	return c.gate(ctx, env)
}

func (t claudeNotebookEdit) Run(ctx context.Context, env *Env, raw json.RawMessage) Result {
	c, r := t.plan(ctx, env, raw)
	if r != nil {
		return *r
	}
	return c.apply(ctx, env, t.reads)
}

// claudeToolError is an error whose text is Claude Code's own, capital and
// full stop included, as models trained on it read it (ST1005 is for Go
// errors that get wrapped; these go to the model as they are).
func claudeToolError(format string, a ...any) error {
	return claudeError(fmt.Sprintf(format, a...))
}

// claudeError is a message in Claude Code's words.
type claudeError string

func (e claudeError) Error() string { return string(e) }
