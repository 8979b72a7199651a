package tools

import (
	"context"
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Claude Code's tools reference, "Edit tool behavior": "Viewing a file
// with Bash also satisfies the read-before-edit requirement when the
// command is cat, head, tail, sed -n 'X,Yp', grep, egrep, or fgrep on a
// single file with no pipes or redirects. Piped output and other Bash
// commands don't count"; "Write tool behavior": the same for Write.

// sedRange is sed -n's 'X,Yp' script.
var sedRange = regexp.MustCompile(`^[0-9]+,[0-9]+p$`)

// viewedFile is the one file command shows when it is such a view: a
// single cat, head, tail, sed -n 'X,Yp', grep, egrep or fgrep of one file,
// every word literal, no pipe, redirect, list or assignment.
func viewedFile(command string) (string, bool) {
	if strings.ContainsRune(command, 0) {
		return "", false
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	if err != nil || len(f.Stmts) != 1 {
		return "", false
	}
	s := f.Stmts[0]
	call, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || s.Background || s.Coprocess || s.Negated || len(s.Redirs) > 0 || len(call.Assigns) > 0 || len(call.Args) < 2 {
		return "", false
	}
	words := make([]string, len(call.Args))
	for i, w := range call.Args {
		if words[i], ok = literalWord(w); !ok {
			return "", false
		}
	}
	var files []string
	switch args := words[1:]; words[0] {
	case "cat":
		files, ok = viewOperands(args, nil, false)
	case "head", "tail":
		files, ok = viewOperands(args, map[string]bool{"-n": true, "-c": true}, false)
	case "sed":
		if len(args) != 3 || args[0] != "-n" || !sedRange.MatchString(args[1]) {
			return "", false
		}
		files, ok = args[2:], true
	case "grep", "egrep", "fgrep":
		files, ok = viewOperands(args, map[string]bool{"-e": true, "-f": true, "-m": true, "-A": true, "-B": true, "-C": true}, true)
	default:
		return "", false
	}
	if !ok || len(files) != 1 || files[0] == "-" {
		return "", false
	}
	return files[0], true
}

// viewOperands are the operands of args after its options (valued names
// the options that take the next word); with pattern, the first operand
// is a grep pattern unless -e or -f gave one. ok is false for an option
// whose value is missing.
func viewOperands(args []string, valued map[string]bool, pattern bool) (files []string, ok bool) {
	hasPattern := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			files = append(files, args[i+1:]...)
			i = len(args)
		case valued[a]:
			if i+1 >= len(args) {
				return nil, false
			}
			hasPattern = hasPattern || a == "-e" || a == "-f"
			i++
		case strings.HasPrefix(a, "-") && a != "-":
		default:
			files = append(files, a)
		}
	}
	if pattern && !hasPattern {
		if len(files) == 0 {
			return nil, false
		}
		files = files[1:]
	}
	return files, true
}

// noteViewed records the file a successful view command showed as read by
// the thread, as it is on disk now.
func (b *claudeBash) noteViewed(ctx context.Context, env *Env, command, dir string) {
	if b.reads == nil {
		return
	}
	file, ok := viewedFile(command)
	if !ok {
		return
	}
	abs := resolvePath(dir, file)
	st, err := env.Backend().Stat(ctx, abs)
	if err != nil || !st.Mode.IsRegular() {
		return
	}
	b.reads.saw(env.ThreadID, abs, readStamp{modTime: st.ModTime, size: st.Size})
}
