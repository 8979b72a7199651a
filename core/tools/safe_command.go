package tools

import "strings"

// IsKnownSafe reports whether a command only reads: every piece of a
// pipeline or && / ; chain is a known read-only command and nothing is
// redirected or substituted. Under approval_policy=untrusted these run
// without asking. It errs on the side of asking.
func IsKnownSafe(cmd string) bool {
	if strings.ContainsAny(cmd, "><`\n") || strings.Contains(cmd, "$(") {
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
	"which": true, "file": true, "stat": true, "tree": true, "grep": true, "rg": true, "nl": true,
	"true": true, "false": true, "whoami": true, "date": true, "uname": true, "du": true, "df": true,
	"sort": true, "uniq": true, "cut": true, "basename": true, "dirname": true, "realpath": true,
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
		case "status", "log", "diff", "show", "branch", "rev-parse", "ls-files", "blame":
			for _, a := range w[2:] {
				if a == "--output" || strings.HasPrefix(a, "--output=") || a == "-D" || a == "-d" || a == "-m" || a == "-M" || a == "--delete" {
					return false
				}
			}
			return true
		}
		return false
	case name == "sed":
		return len(w) > 1 && w[1] == "-n" && !strings.Contains(strings.Join(w, " "), " -i")
	case name == "rg":
		for _, a := range w[1:] {
			if a == "--pre" || strings.HasPrefix(a, "--pre=") {
				return false
			}
		}
		return true
	}
	return safePlain[name]
}
