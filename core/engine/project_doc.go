package engine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/grovecli/grove/core/config"
	"github.com/grovecli/grove/core/project"
	"github.com/grovecli/grove/core/tools/safefile"
	"github.com/grovecli/grove/protocol"
)

// Project instructions (AGENTS.md) are written by whoever can write the
// repository — the model included. As in Codex they reach the model as a
// user-role message that names where they came from, fenced in
// <INSTRUCTIONS>, never as part of grove's own instructions: a
// "# Developer instructions" heading in an AGENTS.md is text inside that
// fence, not grove's word (codex-rs/core/src/agents_md.rs,
// context/user_instructions.rs).

// maxProjectDocBytes caps the project files' bytes per thread (Codex's
// project_doc_max_bytes default).
const maxProjectDocBytes = 32 << 10

// projectDocSeparator marks where the user's global instructions end and
// the project's begin (Codex's AGENTS_MD_SEPARATOR).
const projectDocSeparator = "\n\n--- project-doc ---\n\n"

// agentsDocNames are looked for in each directory, the first regular file
// winning: the local override before the shared file (Codex's order).
var agentsDocNames = []string{"AGENTS.override.md", "AGENTS.md"}

// projectDoc is one AGENTS.md file's text.
type projectDoc struct{ path, text string }

// projectDocs reads the AGENTS files from the repository root (the nearest
// directory with .git) down to cwd, at most limit bytes in all, through
// the pinned model read: a file linked to /proc, a FIFO or a link out of
// the workspace is skipped with a warning. warnings also carry Codex's invalid UTF-8 message.
func projectDocs(cwd string, policy safefile.ReadPolicy, limit int) (docs []projectDoc, warnings []string) {
	remaining := limit
	for _, dir := range projectDocDirs(cwd) {
		if remaining <= 0 {
			break
		}
		path := agentsDocIn(dir)
		if path == "" {
			continue
		}
		data, err := safefile.ReadForModel(path, policy)
		if err != nil {
			if !errors.Is(err, os.ErrNotExist) {
				warnings = append(warnings, fmt.Sprintf("Project AGENTS.md instructions skipped: %v", err))
			}
			continue
		}
		if w := config.InvalidUTF8Warning("Project", path, data); w != "" {
			warnings = append(warnings, w)
		}
		if len(data) > remaining {
			data = data[:remaining]
		}
		text := strings.ToValidUTF8(string(data), "\uFFFD")
		if strings.TrimSpace(text) == "" {
			continue
		}
		docs = append(docs, projectDoc{path: path, text: text})
		remaining -= len(data)
	}
	return docs, warnings
}

// projectDocDirs lists the directories from the repository root down to
// cwd (only cwd outside a repository).
func projectDocDirs(cwd string) []string {
	dirs := project.Chain(cwd)
	for i, j := 0, len(dirs)-1; i < j; i, j = i+1, j-1 {
		dirs[i], dirs[j] = dirs[j], dirs[i]
	}
	return dirs
}

// agentsDocIn names dir's instructions file: the first name that is a
// regular file (a directory or FIFO of that name is passed over).
func agentsDocIn(dir string) string {
	for _, name := range agentsDocNames {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// closeFence finds a text's own attempt to end the fence early.
var closeFence = regexp.MustCompile(`(?i)<\s*/\s*INSTRUCTIONS\s*>`)

// agentsInstructionsText joins the user's global instructions and the
// project files as Codex's legacy layout does.
func agentsInstructionsText(user string, docs []projectDoc) string {
	var b strings.Builder
	b.WriteString(user)
	for i, d := range docs {
		switch {
		case b.Len() > 0 && i == 0:
			b.WriteString(projectDocSeparator)
		case i > 0:
			b.WriteString("\n\n")
		}
		b.WriteString(d.text)
	}
	return b.String()
}

// renderAgentsInstructions is Codex's UserInstructions fragment. A closing
// tag inside the files is made visible text, so nothing after it can pass
// for words outside the fence.
func renderAgentsInstructions(dir, text string) string {
	text = closeFence.ReplaceAllStringFunc(text, func(m string) string {
		return strings.NewReplacer("<", "&lt;", ">", "&gt;").Replace(m)
	})
	return "# AGENTS.md instructions for " + dir + "\n\n<INSTRUCTIONS>\n" + text + "\n</INSTRUCTIONS>"
}

// agentsContext is the user-role message t's model sees first: the user's
// global AGENTS.md and the project's for t's cwd (nil when there are none).
// Problems reading them are warnings, once per file.
func (e *Engine) agentsContext(t *Thread) []protocol.Item {
	docs, warnings := projectDocs(t.cwd, t.readPolicy(0), maxProjectDocBytes)
	for _, w := range warnings {
		e.warnTextOnce(t.id, "agents.md "+w, w)
	}
	text := agentsInstructionsText(strings.TrimSpace(e.opts.UserAgentsMD), docs)
	if strings.TrimSpace(text) == "" {
		return nil
	}
	return []protocol.Item{protocol.UserMessage(renderAgentsInstructions(t.cwd, text))}
}

// warnTextOnce publishes text as a warning the first time key is seen in
// this engine.
func (e *Engine) warnTextOnce(id protocol.ThreadID, key, text string) {
	if e.warnings.first(key) {
		e.bus.Publish(protocol.NewEvent(id, "", protocol.WarningMsg{Text: text}))
	}
}

// ProjectDocPaths names the project instruction files thread id's model
// sees (AGENTS.override.md or AGENTS.md from the repository root down to
// its cwd, the empty ones left out): Codex's instructionSources after the
// user's global file, which the engine knows only as text.
func (e *Engine) ProjectDocPaths(id protocol.ThreadID) []string {
	t := e.thread(id)
	if t == nil {
		return nil
	}
	docs, _ := projectDocs(t.cwd, t.readPolicy(0), maxProjectDocBytes)
	paths := make([]string, 0, len(docs))
	for _, d := range docs {
		paths = append(paths, d.path)
	}
	return paths
}
