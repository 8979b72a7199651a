package tools

import (
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// IsKnownSafe reports whether a command only reads, so that under
// approval_policy=untrusted it may run without asking. The command is
// parsed as bash and judged as Codex judges it: the script is a list of
// simple commands joined by &&, ||, ; and pipes; every word is a literal
// (no expansions, no substitutions, no globs, no braces: the words the
// command gets are exactly the ones judged); nothing is backgrounded or
// redirected to a file; and each simple command is a known reader whose
// arguments include no option that writes, deletes or runs something (GNU
// abbreviations of long options included). Anything else asks.
func IsKnownSafe(cmd string) bool {
	// A NUL cannot reach a program's argv (bash stops the word there, exec
	// refuses it): what would run is not what was judged (found by
	// FuzzKnownSafe).
	if strings.ContainsRune(cmd, 0) {
		return false
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
	if err != nil || len(f.Stmts) == 0 {
		return false
	}
	for _, s := range f.Stmts {
		if !safeStmt(s) {
			return false
		}
	}
	return true
}

func safeStmt(s *syntax.Stmt) bool {
	if s == nil || s.Background || s.Coprocess || s.Disown {
		return false
	}
	for _, r := range s.Redirs {
		if !safeRedirect(r) {
			return false
		}
	}
	switch c := s.Cmd.(type) {
	case *syntax.BinaryCmd:
		switch c.Op {
		case syntax.AndStmt, syntax.OrStmt, syntax.Pipe, syntax.PipeAll:
			return safeStmt(c.X) && safeStmt(c.Y)
		}
		return false
	case *syntax.CallExpr:
		if len(c.Assigns) > 0 || len(c.Args) == 0 {
			return false // VAR=x cmd can change what cmd does (e.g. LD_PRELOAD)
		}
		words := make([]string, len(c.Args))
		for i, w := range c.Args {
			lit, ok := literalWord(w)
			if !ok {
				return false
			}
			words[i] = lit
		}
		return safeWords(words)
	}
	// Subshells, blocks, loops, functions, [[ ]], (( )), declare, time…
	return false
}

// safeRedirect accepts input from a plain file, duplicating a descriptor
// (2>&1) and discarding output into /dev/null; every other redirection
// writes a file or holds expansions.
func safeRedirect(r *syntax.Redirect) bool {
	if r.Hdoc != nil || r.Word == nil {
		return false
	}
	target, ok := literalWord(r.Word)
	if !ok {
		return false
	}
	switch r.Op {
	case syntax.RdrIn:
		// bash opens network connections for /dev/tcp/… and /dev/udp/….
		return target != "" && !strings.HasPrefix(target, "/dev/tcp/") && !strings.HasPrefix(target, "/dev/udp/")
	case syntax.DplIn, syntax.DplOut:
		return target == "-" || isDigits(target)
	case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll:
		return target == "/dev/null"
	}
	return false
}

// literalWord returns the value of a word that expands to exactly itself:
// unquoted text without expansions or braces, single quotes, and double
// quotes holding only text. No glob, brace or other expansion: each
// makes the words the command gets unknown.
func literalWord(w *syntax.Word) (string, bool) {
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			// {a,b} and {1..3} become several words.
			if strings.ContainsAny(p.Value, "{}") {
				return "", false
			}
			// A glob makes the number of operands unknown (`uniq a*`
			// becomes `uniq a.txt arg-out`, an output operand) and may
			// produce an option from a file's name (issue 21).
			if strings.ContainsAny(p.Value, "*?[") {
				return "", false
			}
		case *syntax.SglQuoted:
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if _, ok := q.(*syntax.Lit); !ok {
					return "", false
				}
			}
		default: // $VAR, $(…), `…`, <(…), $((…)), extglobs
			return "", false
		}
	}
	// Fields, not Literal: the value is judged after quote removal, as bash
	// runs it (Literal keeps backslashes, so `-exe\c` would not be seen as
	// find's -exec).
	// A fresh Config each call: with nil, expand shares one package-level
	// config and mutates it, so concurrent checks (tool calls of one reply
	// run at once) raced and could judge a writing command safe.
	fields, err := expand.Fields(&expand.Config{}, w)
	if err != nil || len(fields) != 1 {
		return "", false
	}
	return fields[0], true
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// safePlain are readers with no option that writes or runs anything.
var safePlain = map[string]bool{
	"cat": true, "cd": true, "cut": true, "echo": true, "expr": true, "false": true, "grep": true,
	"head": true, "id": true, "ls": true, "nl": true, "paste": true, "pwd": true, "rev": true,
	"seq": true, "stat": true, "tail": true, "tr": true, "true": true, "uname": true, "wc": true,
	"which": true, "whoami": true, "tac": true, "numfmt": true, "basename": true, "dirname": true,
	"realpath": true, "du": true, "df": true,
}

// sedPrintOnly matches the only sed scripts allowed: print one line or a
// range (5p, 1,20p, $p).
var sedPrintOnly = regexp.MustCompile(`^(\d+|\$)(,(\d+|\$))?p$`)

// findUnsafe are find's primaries that run, delete or write files.
var findUnsafe = map[string]bool{
	"-exec": true, "-execdir": true, "-ok": true, "-okdir": true, "-delete": true,
	"-fls": true, "-fprint": true, "-fprint0": true, "-fprintf": true,
}

// optionRule names the options of a command that write, delete or run
// something: short letters (also inside clusters like -uo) and long names
// (also GNU abbreviations like --o for --output, and --name=value).
type optionRule struct {
	short string
	long  []string
}

var optionRules = map[string]optionRule{
	"sort":   {short: "oT", long: []string{"--output", "--compress-program", "--temporary-directory"}},
	"rg":     {short: "z", long: []string{"--pre", "--hostname-bin", "--search-zip"}},
	"tree":   {short: "oR", long: []string{"--output"}},
	"file":   {short: "CzZ", long: []string{"--compile", "--uncompress", "--uncompress-noreport"}}, // -z may run decompressors
	"base64": {short: "o", long: []string{"--output"}},
	"date":   {short: "s", long: []string{"--set"}},
}

func safeWords(w []string) bool {
	name, args := w[0], w[1:]
	if strings.Contains(name, "/") {
		return false // ./ls or /tmp/cat may be anything
	}
	switch name {
	case "find":
		for _, a := range args {
			if findUnsafe[a] {
				return false
			}
		}
		return true
	case "sed":
		// Only `sed -n <range>p [file]`: every other script or option can
		// write (w, -i) or run commands (e), as Codex caps it.
		return len(w) >= 3 && len(w) <= 4 && w[1] == "-n" && sedPrintOnly.MatchString(w[2]) &&
			(len(w) == 3 || !strings.HasPrefix(w[3], "-"))
	case "uniq":
		// `uniq in out` writes out: at most one operand. After "--" every
		// word is an operand (`uniq -- in -out` writes -out); an option's
		// separate argument (-f 1) counts as one too, which only asks
		// more.
		n, opts := 0, true
		for _, a := range args {
			switch {
			case opts && a == "--":
				opts = false
			case opts && strings.HasPrefix(a, "-") && a != "-":
			default:
				n++
			}
		}
		return n <= 1
	}
	if rule, ok := optionRules[name]; ok {
		return !rule.matches(args)
	}
	return safePlain[name]
}

// matches reports whether any argument before "--" is one of the rule's
// options.
func (r optionRule) matches(args []string) bool {
	for _, a := range args {
		switch {
		case a == "--":
			return false
		case strings.HasPrefix(a, "--"):
			opt, _, _ := strings.Cut(a, "=")
			for _, l := range r.long {
				// getopt_long accepts any unambiguous prefix: --o, --comp.
				if len(opt) > 2 && strings.HasPrefix(l, opt) {
					return true
				}
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			if strings.ContainsAny(a[1:], r.short) {
				return true
			}
		}
	}
	return false
}
