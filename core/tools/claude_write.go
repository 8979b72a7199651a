package tools

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/tools/schema"
)

type claudeWrite struct{ reads *readState }

// claudeWriteArgs are Write's arguments (Claude Code's names).
type claudeWriteArgs struct {
	FilePath string `json:"file_path" required:"true" jsonschema:"The absolute path to the file to write (must be absolute, not relative)"`
	Content  string `json:"content" required:"true" jsonschema:"The content to write to the file"`
}

const claudeWriteDesc = `Writes a file to the local filesystem.

Usage:
- This tool will overwrite the existing file if there is one at the provided path.
- If this is an existing file, you MUST use the Read tool first to read the file's contents. This tool will fail if you did not read the file first.
- ALWAYS prefer editing existing files in the codebase. NEVER write new files unless explicitly required.
- NEVER proactively create documentation files (*.md) or README files. Only create documentation files if explicitly requested by the User.`

func (claudeWrite) Spec() model.ToolSpec {
	return model.ToolSpec{Name: ClaudeWrite, Description: claudeWriteDesc, Parameters: schema.MustObject(claudeWriteArgs{})}
}

// plan computes the write; a refusal comes back as the result.
func (t claudeWrite) plan(ctx context.Context, env *Env, raw json.RawMessage) (fileChange, *Result) {
	var a claudeWriteArgs
	if err := decode(ClaudeWrite, raw, &a); err != nil {
		r := Errorf("%v", err)
		return fileChange{}, &r
	}
	if a.FilePath == "" {
		r := Errorf(`invalid arguments for Write: field "file_path" is required`)
		return fileChange{}, &r
	}
	abs := resolvePath(env.Cwd, a.FilePath)
	old, st, exists, err := currentFile(ctx, env, abs)
	if err != nil {
		r := Errorf("Write: %v", err)
		return fileChange{}, &r
	}
	c := fileChange{tool: ClaudeWrite, abs: abs, content: a.Content}
	if !exists {
		c.answer = func() string { return "File created successfully at: " + abs }
		return c, nil
	}
	if msg := t.reads.checkFresh(env.ThreadID, abs, readStamp{modTime: st.ModTime, size: st.Size}); msg != "" {
		r := Errorf("%s", msg)
		return fileChange{}, &r
	}
	c.old = &old
	c.answer = func() string {
		lines := patchLines(a.Content)
		return fmt.Sprintf("The file %s has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n%s", abs, catN(lines[:min(len(lines), claudeReadLines)], 1))
	}
	return c, nil
}

func (t claudeWrite) Gate(ctx context.Context, env *Env, raw json.RawMessage) (Gate, *Result) {
	c, r := t.plan(ctx, env, raw)
	if r != nil {
		return Gate{}, r
	}
	return c.gate(ctx, env)
}

func (t claudeWrite) Run(ctx context.Context, env *Env, raw json.RawMessage) Result {
	c, r := t.plan(ctx, env, raw)
	if r != nil {
		return *r
	}
	return c.apply(ctx, env, t.reads)
}
