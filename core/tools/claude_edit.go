package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/tools/schema"
)

// claudeSnippetContext is how many lines Edit's answer shows around the
// edited region (Claude Code's snippet).
const claudeSnippetContext = 4

type claudeEdit struct{ reads *readState }

// claudeEditArgs are Edit's arguments (Claude Code's names).
type claudeEditArgs struct {
	FilePath   string `json:"file_path" required:"true" jsonschema:"The absolute path to the file to modify"`
	OldString  string `json:"old_string" required:"true" jsonschema:"The text to replace"`
	NewString  string `json:"new_string" required:"true" jsonschema:"The text to replace it with (must be different from old_string)"`
	ReplaceAll bool   `json:"replace_all" jsonschema:"Replace all occurrences of old_string (default false)"`
}

const claudeEditDesc = `Performs exact string replacements in files.

Usage:
- You must use your Read tool at least once in the conversation before editing. This tool will error if you attempt an edit without reading the file.
- When editing text from Read tool output, ensure you preserve the exact indentation (tabs/spaces) as it appears AFTER the line number prefix. The line number prefix format is: spaces + line number + arrow. Everything after that arrow is the actual file content to match. Never include any part of the line number prefix in the old_string or new_string.
- ALWAYS prefer editing existing files in the codebase. NEVER write new files unless explicitly required.
- The edit will FAIL if old_string is not unique in the file. Either provide a larger string with more surrounding context to make it unique or use replace_all to change every instance of old_string.
- Use replace_all for replacing and renaming strings across the file. This parameter is useful if you want to rename a variable for instance.`

func (claudeEdit) Spec() model.ToolSpec {
	return model.ToolSpec{Name: ClaudeEdit, Description: claudeEditDesc, Parameters: schema.MustObject(claudeEditArgs{})}
}

// edit is one replacement of Edit or MultiEdit.
type edit struct {
	OldString  string `json:"old_string" required:"true" jsonschema:"The text to replace"`
	NewString  string `json:"new_string" required:"true" jsonschema:"The text to replace it with"`
	ReplaceAll bool   `json:"replace_all" jsonschema:"Replace all occurrences of old_string. This parameter is optional and defaults to false."`
}

// applyEdit applies one replacement to text, or says why it cannot, in
// Claude Code's words. at is the byte offset of the first replacement.
func applyEdit(text string, e edit) (out string, at int, refusal string) {
	switch {
	case e.OldString == e.NewString:
		return "", 0, "No changes to make: old_string and new_string are exactly the same."
	case e.OldString == "":
		return "", 0, "Cannot create new file - file already exists."
	}
	n := strings.Count(text, e.OldString)
	switch {
	case n == 0:
		return "", 0, "String to replace not found in file.\nString: " + e.OldString
	case n > 1 && !e.ReplaceAll:
		return "", 0, fmt.Sprintf("Found %d matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: %s", n, e.OldString)
	}
	at = strings.Index(text, e.OldString)
	if e.ReplaceAll {
		return strings.ReplaceAll(text, e.OldString, e.NewString), at, ""
	}
	return text[:at] + e.NewString + text[at+len(e.OldString):], at, ""
}

// editPlan computes the edits of file abs in order, all or none; with a
// new file (old_string "" on a path that does not exist) the first edit
// creates it.
func (r *readState) editPlan(ctx context.Context, env *Env, tool, path string, edits []edit) (fileChange, int, *Result) {
	fail := func(format string, args ...any) (fileChange, int, *Result) {
		res := Errorf(format, args...)
		return fileChange{}, 0, &res
	}
	if path == "" {
		return fail(`invalid arguments for %s: field "file_path" is required`, tool)
	}
	abs := resolvePath(env.Cwd, path)
	text, st, exists, err := currentFile(ctx, env, abs)
	if err != nil {
		return fail("%s: %v", tool, err)
	}
	c := fileChange{tool: tool, abs: abs}
	if !exists {
		if len(edits) == 0 || edits[0].OldString != "" {
			return fail("File does not exist.")
		}
		text, edits = edits[0].NewString, edits[1:]
	} else {
		if msg := r.checkFresh(env.ThreadID, abs, readStamp{modTime: st.ModTime, size: st.Size}); msg != "" {
			return fail("%s", msg)
		}
		old := text
		c.old = &old
	}
	crlf := strings.Contains(text, "\r\n")
	if crlf {
		// Match and edit in LF form; the file keeps its CRLF endings.
		text = strings.ReplaceAll(text, "\r\n", "\n")
	}
	first := -1
	for _, e := range edits {
		e.OldString = strings.ReplaceAll(e.OldString, "\r\n", "\n")
		e.NewString = strings.ReplaceAll(e.NewString, "\r\n", "\n")
		var at int
		var refusal string
		if text, at, refusal = applyEdit(text, e); refusal != "" {
			return fail("%s", refusal)
		}
		if first < 0 || at < first {
			first = at
		}
	}
	c.content = text
	if crlf {
		c.content = strings.ReplaceAll(text, "\n", "\r\n")
	}
	return c, max(first, 0), nil
}

// snippet is Edit's answer: the edited region of text (LF line endings;
// at is a byte offset in it) with four lines around it, numbered as Read
// numbers them.
func snippet(text string, at int, newString string) string {
	lines := strings.Split(text, "\n")
	startLine := strings.Count(text[:min(at, len(text))], "\n")
	from := max(0, startLine-claudeSnippetContext)
	to := min(len(lines), startLine+strings.Count(newString, "\n")+1+claudeSnippetContext)
	if to > from && lines[to-1] == "" && to == len(lines) {
		to-- // the empty "line" after a final newline
	}
	return catN(lines[from:to], from+1)
}

func (t claudeEdit) plan(ctx context.Context, env *Env, raw json.RawMessage) (fileChange, *Result) {
	var a claudeEditArgs
	if err := decode(ClaudeEdit, raw, &a); err != nil {
		r := Errorf("%v", err)
		return fileChange{}, &r
	}
	e := edit{OldString: a.OldString, NewString: a.NewString, ReplaceAll: a.ReplaceAll}
	c, at, r := t.reads.editPlan(ctx, env, ClaudeEdit, a.FilePath, []edit{e})
	if r != nil {
		return c, r
	}
	c.answer = func() string {
		if a.ReplaceAll {
			return fmt.Sprintf("The file %s has been updated. All occurrences of '%s' were successfully replaced with '%s'.", c.abs, a.OldString, a.NewString)
		}
		return fmt.Sprintf("The file %s has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n%s", c.abs, snippet(strings.ReplaceAll(c.content, "\r\n", "\n"), at, a.NewString))
	}
	return c, nil
}

func (t claudeEdit) Gate(ctx context.Context, env *Env, raw json.RawMessage) (Gate, *Result) {
	c, r := t.plan(ctx, env, raw)
	if r != nil {
		return Gate{}, r
	}
	return c.gate(ctx, env)
}

func (t claudeEdit) Run(ctx context.Context, env *Env, raw json.RawMessage) Result {
	c, r := t.plan(ctx, env, raw)
	if r != nil {
		return *r
	}
	return c.apply(ctx, env, t.reads)
}
