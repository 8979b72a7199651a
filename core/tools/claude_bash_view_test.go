package tools

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestViewedFile: the Bash commands Claude Code's tools reference counts
// as viewing a file ("cat, head, tail, sed -n 'X,Yp', grep, egrep, or
// fgrep on a single file with no pipes or redirects"), and ones it does
// not ("Piped output and other Bash commands don't count").
func TestViewedFile(t *testing.T) {
	for cmd, want := range map[string]string{
		"cat a.txt":                  "a.txt",
		"cat -n /w/a.txt":            "/w/a.txt",
		`cat "my file.txt"`:          "my file.txt",
		"head -n 20 a.txt":           "a.txt",
		"head -20 a.txt":             "a.txt",
		"tail -n 5 a.txt":            "a.txt",
		"sed -n '10,40p' a.txt":      "a.txt",
		"grep -n needle a.txt":       "a.txt",
		"grep -e needle -i a.txt":    "a.txt",
		"grep -A 3 needle a.txt":     "a.txt",
		"egrep 'a|b' a.txt":          "a.txt",
		"fgrep -- -x a.txt":          "a.txt",
		"cat -- a.txt":               "a.txt",
		"cat a.txt | head":           "",
		"cat a.txt > b.txt":          "",
		"cat < a.txt":                "",
		"grep x a.txt 2>/dev/null":   "",
		"cat a.txt b.txt":            "",
		"grep needle":                "",
		"grep needle a.txt b.txt":    "",
		"head -n a.txt":              "",
		"sed -n 5p a.txt":            "",
		"sed 's/a/b/' a.txt":         "",
		"sed -n '1,5p' -i a.txt":     "",
		"cat $F":                     "",
		"cat *.txt":                  "",
		"less a.txt":                 "",
		"cat a.txt && rm a.txt":      "",
		"cat a.txt; cat a.txt":       "",
		"LC_ALL=C cat a.txt":         "",
		"cat -":                      "",
		"cat a.txt &":                "",
		"(cat a.txt)":                "",
		"cat":                        "",
		"cat 'a.txt":                 "",
		"grep -e x":                  "",
		"tail -f a.txt\nrm a.txt":    "",
		"wc -l a.txt":                "",
		"nl a.txt":                   "",
		"grep -rn needle .":          ".",
		"head -c 100 /etc/passwd":    "/etc/passwd",
		"tail --lines=3 a.txt":       "a.txt",
		"fgrep -f pats.txt a.txt":    "a.txt",
		"grep --color=never x a.txt": "a.txt",
	} {
		got, ok := viewedFile(cmd)
		if ok != (want != "") || got != want {
			t.Errorf("viewedFile(%q) = %q, %v; want %q", cmd, got, ok, want)
		}
	}
}

// TestClaudeBashViewCountsAsRead: after `cat`, `sed -n 'X,Yp'` or `grep`
// of a file through Bash, Edit and Write may change it; after a piped
// `cat`, or a command that failed, they refuse it as not read. A view
// made before the file changed is stale as a Read would be.
func TestClaudeBashViewCountsAsRead(t *testing.T) {
	r, env := claudeRegistry(t), testEnv(t)
	env.ThreadID = "t"
	for _, n := range []string{"cat.txt", "sed.txt", "grep.txt", "piped.txt", "failed.txt", "write.txt"} {
		write(t, env.Cwd, n, "old\n")
	}
	p := func(n string) string { return filepath.Join(env.Cwd, n) }
	for _, cmd := range []string{"cat cat.txt", "sed -n '1,1p' " + p("sed.txt"), "grep -n old grep.txt", "cat piped.txt | cat", "grep absent failed.txt", "head -n 1 write.txt"} {
		run(t, r, env, ClaudeBash, map[string]any{"command": cmd})
	}
	for file, want := range map[string]string{
		"cat.txt":    "The file " + p("cat.txt") + " has been updated.",
		"sed.txt":    "The file " + p("sed.txt") + " has been updated.",
		"grep.txt":   "The file " + p("grep.txt") + " has been updated.",
		"piped.txt":  claudeNotRead,
		"failed.txt": claudeNotRead,
	} {
		got := run(t, r, env, ClaudeEdit, map[string]any{"file_path": p(file), "old_string": "old", "new_string": "new"}).Output
		if !strings.HasPrefix(got, want) {
			t.Errorf("Edit of %s after its Bash view = %q, want it to begin %q", file, got, want)
		}
	}
	if got := run(t, r, env, ClaudeWrite, map[string]any{"file_path": p("write.txt"), "content": "new\n"}).Output; !strings.HasPrefix(got, "The file "+p("write.txt")+" has been updated.") {
		t.Errorf("Write after head = %q", got)
	}
}
