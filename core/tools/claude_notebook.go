package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/grovecli/grove/core/execenv"
)

// claudeNotebookMax bounds the notebooks Read renders.
const claudeNotebookMax = 8 << 20

// notebookCell is what Read shows of one Jupyter cell.
type notebookCell struct {
	ID       string          `json:"id"`
	CellType string          `json:"cell_type"`
	Source   json.RawMessage `json:"source"`
	Outputs  []struct {
		OutputType string                     `json:"output_type"`
		Text       json.RawMessage            `json:"text"`
		Data       map[string]json.RawMessage `json:"data"`
		EName      string                     `json:"ename"`
		EValue     string                     `json:"evalue"`
	} `json:"outputs"`
}

// notebook renders a .ipynb file as its cells, each with its id, type,
// source and text outputs, the way Claude Code's Read presents notebooks.
func (t claudeRead) notebook(ctx context.Context, env *Env, fsys execenv.FileSystem, abs string, st execenv.FileInfo) Result {
	if st.Size > claudeNotebookMax {
		return Errorf("Read: the notebook %s is %d KB, over %d KB; inspect it with Bash (jq) instead", abs, st.Size>>10, claudeNotebookMax>>10)
	}
	data, err := readAllFrom(ctx, fsys, abs, st.Size)
	if err != nil {
		return Errorf("Read: %v", err)
	}
	var nb struct {
		Cells []notebookCell `json:"cells"`
	}
	if err := json.Unmarshal(data, &nb); err != nil {
		return Errorf("Read: %s is not a valid Jupyter notebook: %v", abs, err)
	}
	t.reads.saw(env.ThreadID, abs, readStamp{modTime: st.ModTime, size: st.Size})
	var b strings.Builder
	for i, c := range nb.Cells {
		id := c.ID
		if id == "" {
			id = fmt.Sprintf("cell-%d", i)
		}
		fmt.Fprintf(&b, "<cell id=%q>", id)
		if c.CellType != "code" {
			fmt.Fprintf(&b, "<cell_type>%s</cell_type>", c.CellType)
		}
		b.WriteString(joinedText(c.Source))
		fmt.Fprintf(&b, "</cell id=%q>\n", id)
		for _, o := range c.Outputs {
			text := joinedText(o.Text)
			if text == "" {
				text = joinedText(o.Data["text/plain"])
			}
			if o.OutputType == "error" {
				text = o.EName + ": " + o.EValue
			}
			if text != "" {
				fmt.Fprintf(&b, "<output>%s</output>\n", strings.TrimRight(text, "\n"))
			}
		}
	}
	if b.Len() == 0 {
		return Result{Output: "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>", Summary: "read notebook " + abs}
	}
	return Result{Output: b.String(), Summary: fmt.Sprintf("read notebook %s (%d cells)", abs, len(nb.Cells))}
}

// joinedText reads a notebook text field: a string or a list of strings.
func joinedText(raw json.RawMessage) string {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return one
	}
	var many []string
	if json.Unmarshal(raw, &many) == nil {
		return strings.Join(many, "")
	}
	return ""
}
