package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/tools/schema"
)

type claudeMultiEdit struct{ reads *readState }

// claudeMultiEditArgs are MultiEdit's arguments (Claude Code's names).
type claudeMultiEditArgs struct {
	FilePath string `json:"file_path" required:"true" jsonschema:"The absolute path to the file to modify"`
	Edits    []edit `json:"edits" required:"true" minItems:"1" jsonschema:"Array of edit operations to perform sequentially on the file"`
}

const claudeMultiEditDesc = `This is a tool for making multiple edits to a single file in one operation. It is built on top of the Edit tool and allows you to perform multiple find-and-replace operations efficiently. Prefer this tool over the Edit tool when you need to make multiple edits to the same file.

Before using this tool:
1. Use the Read tool to understand the file's contents and context

Each edit has old_string, new_string and an optional replace_all, with the Edit tool's rules. The edits are applied in sequence, each to the result of the previous one, and atomically: if any edit fails, none are applied. To create a new file, give the file path and a first edit with an empty old_string and the file's contents as new_string.`

func (claudeMultiEdit) Spec() model.ToolSpec {
	return model.ToolSpec{Name: ClaudeMultiEdit, Description: claudeMultiEditDesc, Parameters: schema.MustObject(claudeMultiEditArgs{})}
}

func (t claudeMultiEdit) plan(ctx context.Context, env *Env, raw json.RawMessage) (fileChange, *Result) {
	var a claudeMultiEditArgs
	if err := decode(ClaudeMultiEdit, raw, &a); err != nil {
		r := Errorf("%v", err)
		return fileChange{}, &r
	}
	if len(a.Edits) == 0 {
		r := Errorf(`invalid arguments for MultiEdit: field "edits" must hold at least one edit`)
		return fileChange{}, &r
	}
	c, _, r := t.reads.editPlan(ctx, env, ClaudeMultiEdit, a.FilePath, a.Edits)
	if r != nil {
		return c, r
	}
	c.answer = func() string {
		var b strings.Builder
		fmt.Fprintf(&b, "Applied %d edit", len(a.Edits))
		if len(a.Edits) != 1 {
			b.WriteByte('s')
		}
		fmt.Fprintf(&b, " to %s:", c.abs)
		for i, e := range a.Edits {
			fmt.Fprintf(&b, "\n%d. Replaced \"%s\" with \"%s\"", i+1, clip50(e.OldString), clip50(e.NewString))
		}
		return b.String()
	}
	return c, nil
}

// clip50 shortens a string for MultiEdit's answer the way Claude Code
// does: 50 characters and an ellipsis.
func clip50(s string) string {
	if utf8.RuneCountInString(s) <= 50 {
		return s
	}
	return string([]rune(s)[:50]) + "..."
}

func (t claudeMultiEdit) Gate(ctx context.Context, env *Env, raw json.RawMessage) (Gate, *Result) {
	c, r := t.plan(ctx, env, raw)
	if r != nil {
		return Gate{}, r
	}
	return c.gate(ctx, env)
}

func (t claudeMultiEdit) Run(ctx context.Context, env *Env, raw json.RawMessage) Result {
	c, r := t.plan(ctx, env, raw)
	if r != nil {
		return *r
	}
	return c.apply(ctx, env, t.reads)
}
