package tools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const testNotebook = `{
 "cells": [
  {"cell_type": "markdown", "id": "intro", "metadata": {}, "source": ["# Title\n"]},
  {"cell_type": "code", "execution_count": 3, "id": "calc", "metadata": {"tags": ["x"]}, "outputs": [{"output_type": "stream", "name": "stdout", "text": ["2\n"]}], "source": ["print(1+1)"]}
 ],
 "metadata": {"kernelspec": {"name": "python3"}},
 "nbformat": 4,
 "nbformat_minor": 5
}
`

// notebookCells reads the notebook back as cells.
func notebookCells(t *testing.T, p string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var nb struct {
		Cells    []map[string]any `json:"cells"`
		Metadata map[string]any   `json:"metadata"`
	}
	if err := json.Unmarshal(b, &nb); err != nil {
		t.Fatalf("the notebook is no longer JSON: %v\n%s", err, b)
	}
	if nb.Metadata["kernelspec"] == nil {
		t.Errorf("the notebook lost its metadata:\n%s", b)
	}
	return nb.Cells
}

// TestClaudeNotebookEdit: NotebookEdit (Claude Code's arguments) refuses
// a notebook not Read, replaces a code cell's source clearing its stale
// outputs and keeping its metadata, inserts after a cell (with a fresh id
// in an nbformat 4.5 notebook) or at the start, deletes, finds cells by
// Read's cell-N name, and refuses an unknown id, an insert without a type,
// and a notebook changed since it was read.
func TestClaudeNotebookEdit(t *testing.T) {
	r, env := claudeRegistry(t), testEnv(t)
	env.ThreadID = "t"
	write(t, env.Cwd, "nb.ipynb", testNotebook)
	nb := filepath.Join(env.Cwd, "nb.ipynb")
	edit := func(args map[string]any) Result {
		args["notebook_path"] = nb
		return run(t, r, env, ClaudeNotebookEdit, args)
	}
	if got := edit(map[string]any{"cell_id": "calc", "new_source": "x"}).Output; got != claudeNotRead {
		t.Fatalf("an edit before Read = %q", got)
	}
	if res := run(t, r, env, ClaudeRead, map[string]any{"file_path": nb}); !strings.Contains(res.Output, `<cell id="calc">`) {
		t.Fatalf("Read of the notebook: %q", res.Output)
	}
	if got := edit(map[string]any{"cell_id": "calc", "new_source": "print(2+2)"}).Output; got != "Updated cell calc with print(2+2)" {
		t.Errorf("replace = %q", got)
	}
	cells := notebookCells(t, nb)
	if c := cells[1]; c["source"] != "print(2+2)" || c["execution_count"] != nil || len(c["outputs"].([]any)) != 0 || c["metadata"].(map[string]any)["tags"] == nil {
		t.Errorf("the replaced cell = %v", c)
	}
	res := edit(map[string]any{"cell_id": "intro", "new_source": "y = 1", "cell_type": "code", "edit_mode": "insert"})
	if !strings.HasPrefix(res.Output, "Inserted cell ") || res.IsError {
		t.Errorf("insert = %+v", res)
	}
	cells = notebookCells(t, nb)
	if len(cells) != 3 || cells[1]["source"] != "y = 1" || cells[1]["cell_type"] != "code" || len(cells[1]["id"].(string)) == 0 {
		t.Errorf("after the insert: %v", cells)
	}
	if got := edit(map[string]any{"new_source": "first", "cell_type": "markdown", "edit_mode": "insert"}).Output; !strings.HasPrefix(got, "Inserted cell ") {
		t.Errorf("insert at the start = %q", got)
	}
	if got := edit(map[string]any{"cell_id": "cell-0", "new_source": "", "edit_mode": "delete"}).Output; got != "Deleted cell cell-0" {
		t.Errorf("delete by cell-N = %q", got)
	}
	if got := edit(map[string]any{"cell_id": "intro", "new_source": "", "edit_mode": "delete"}).Output; got != "Deleted cell intro" {
		t.Errorf("delete = %q", got)
	}
	cells = notebookCells(t, nb)
	if len(cells) != 2 || cells[0]["source"] != "y = 1" || cells[1]["id"] != "calc" {
		t.Errorf("after the deletes: %v", cells)
	}
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"cell_id": "nope", "new_source": "x"}, `Cell with ID "nope" not found in notebook.`},
		{map[string]any{"new_source": "x", "edit_mode": "insert"}, "Cell type is required when using edit_mode=insert."},
		{map[string]any{"new_source": "x"}, "Cell ID must be specified when not inserting a new cell."},
	} {
		if res := edit(c.args); res.Output != c.want || !res.IsError {
			t.Errorf("NotebookEdit %v = %+v, want %q", c.args, res, c.want)
		}
	}
	if err := os.WriteFile(nb, []byte(testNotebook+" "), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := edit(map[string]any{"cell_id": "calc", "new_source": "z"}).Output; got != claudeModified {
		t.Errorf("an edit of a changed notebook = %q", got)
	}
	if got := run(t, r, env, ClaudeNotebookEdit, map[string]any{"notebook_path": filepath.Join(env.Cwd, "a.txt"), "new_source": "x"}).Output; !strings.HasPrefix(got, "File must be a Jupyter notebook") {
		t.Errorf("a non-notebook = %q", got)
	}
}
