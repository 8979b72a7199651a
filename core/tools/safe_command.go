package tools

import (
	"regexp"
	"strings"
)

// sedPrintOnly matches sed scripts that only print a line range: 5p, 1,20p, $p.
var sedPrintOnly = regexp.MustCompile(`^(\d+|\$)(,(\d+|\$))?p$`)

// IsKnownSafe reports whether a command only reads: every piece of a
// pipeline or && / ; chain is a known read-only command and nothing is
// redirected or substituted. Under approval_policy=untrusted these run
// without asking. It errs on the side of asking.
func IsKnownSafe(cmd string) bool {
	if strings.ContainsAny(cmd, "><`\n") || strings.Contains(cmd, "$(") {
		return false
	}
	// A lone & backgrounds a command: the chain is no longer one read.
	if strings.Contains(strings.ReplaceAll(cmd, "&&", ""), "&") {
		return false
	}
	for _, part := range splitChain(cmd) {
		words := strings.Fields(part)
		if len(words) == 0 || !safeWords(words) {
			return false
		}
	}
	return true
}

// splitChain splits on |, ||, && and ;.
func splitChain(cmd string) []string {
	r := strings.NewReplacer("||", "\x00", "&&", "\x00", "|", "\x00", ";", "\x00")
	return strings.Split(r.Replace(cmd), "\x00")
}

var safePlain = map[string]bool{
	"ls": true, "cat": true, "pwd": true, "echo": true, "head": true, "tail": true, "wc": true,
	"which": true, "file": true, "stat": true, "grep": true, "nl": true,
	"true": true, "false": true, "whoami": true, "date": true, "uname": true, "du": true, "df": true,
	"cut": true, "basename": true, "dirname": true, "realpath": true,
}

func safeWords(w []string) bool {
	name := w[0]
	switch {
	case name == "find":
		for _, a := range w[1:] {
			if a == "-exec" || a == "-execdir" || a == "-delete" || a == "-ok" || a == "-okdir" || strings.HasPrefix(a, "-fprint") || a == "-fls" {
				return false
			}
		}
		return true
	case name == "git":
		if len(w) < 2 {
			return false
		}
		switch w[1] {
		case "branch":
			// Listing only: any name would create or change a branch.
			for _, a := range w[2:] {
				if !strings.HasPrefix(a, "-") || a == "-D" || a == "-d" || a == "-m" || a == "-M" || a == "-c" || a == "-C" || a == "--delete" || a == "--move" || a == "--copy" || a == "-f" || a == "--force" || a == "-u" || strings.HasPrefix(a, "--set-upstream") || a == "--unset-upstream" || a == "--edit-description" {
					return false
				}
			}
			return true
		case "status", "log", "diff", "show", "rev-parse", "ls-files", "blame":
			for _, a := range w[2:] {
				if a == "--output" || strings.HasPrefix(a, "--output=") || a == "-D" || a == "-d" || a == "-m" || a == "-M" || a == "--delete" {
					return false
				}
			}
			return true
		}
		return false
	case name == "sed":
		// Only `sed -n '<range>p' file…`: sed scripts can write (w) and run (e).
		return len(w) > 2 && w[1] == "-n" && sedPrintOnly.MatchString(strings.Trim(w[2], `'"`))
	case name == "rg":
		for _, a := range w[1:] {
			// --pre runs a program; -z/--search-zip start decompressors.
			if a == "--pre" || strings.HasPrefix(a, "--pre=") || a == "-z" || a == "--search-zip" || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "z") {
				return false
			}
		}
		return true
	case name == "sort":
		for _, a := range w[1:] {
			if a == "-o" || strings.HasPrefix(a, "-o") || strings.HasPrefix(a, "--output") {
				return false
			}
		}
		return true
	case name == "tree":
		for _, a := range w[1:] {
			if a == "-o" || strings.HasPrefix(a, "-o") {
				return false
			}
		}
		return true
	case name == "uniq":
		// `uniq in out` writes out.
		n := 0
		for _, a := range w[1:] {
			if !strings.HasPrefix(a, "-") {
				n++
			}
		}
		return n <= 1
	}
	return safePlain[name]
}
