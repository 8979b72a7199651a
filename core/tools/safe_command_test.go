package tools

import (
	"fmt"
	"sync"
	"testing"
)

// TestIsKnownSafeTable: true = runs without asking under untrusted.
// Every command that could write, delete, run another program or expand
// into something unseen must ask.
func TestIsKnownSafeTable(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		safe bool
	}{
		// Plain readers, chains and pipes.
		{"ls -la", true},
		{"cat a.go | grep x | wc -l", true},
		{"ls && pwd", true},
		{"grep -R 'Cargo.toml' -n || true", true},
		{"echo 'hi' ; ls", true},
		{"ls | wc -l", true},
		{"ls\npwd", true},
		{"ls # a comment", true},
		{"head -n 20 main.go && tail -5 main.go", true},
		{"cd sub && ls", true},
		{"! grep -q x f", true},
		{"grep -rn TODO src/*.go", false}, // a glob: unknown words (issue 21)
		{"grep -rn TODO 'src/*.go'", true},
		{"uniq a*", false},
		{"uniq -- seed.txt -pwn", false},
		{"uniq -- -in -pwn2", false},
		{"uniq -- -in", true},
		{"uniq -c -- in", true},
		{"uniq -f 1 in", false},
		{"cat src/?.go", false},
		{"cat src/[ab].go", false},
		{"find . -name '*.go'", true},
		{"find . -type f -newer go.mod", true},
		{"sed -n 1,5p f", true},
		{"sed -n '1,5p' file.txt", true},
		{"sed -n '$p' f", true},
		{"sed -n 10p", true},
		{"rg foo", true},
		{"rg -i foo", true},
		{"rg --pretty foo", true},
		{"sort in", true},
		{"sort -u -k2,2 in", true},
		{"uniq in", true},
		{"uniq -c", true},
		{"tree -L 2", true},
		{"file main.go", true},
		{"base64 f", true},
		{"date +%s", true},
		{"wc -l < main.go", true},
		{"grep x f 2>/dev/null", true},
		{"grep x f 2>&1 | head", true},
		{"ls -la >/dev/null", true},
		// Quoted operators are text, not operators.
		{"echo 'a;b'", true},
		// Judged after quote removal, as bash runs them (red-team finds).
		{`find . -exe\c touch x ';'`, false},
		{`find . -de\lete`, false},
		{`find . -fprin\t x`, false},
		{`sort --out\put=x a`, false},
		{`sort -"o" x a`, false},
		{`sed -n 1p -'i' f`, false},
		{`cat a\ b`, true},
		{"echo \"a > b\"", true},
		{"grep 'a|b' f", true},
		{"grep -E \"x && y\" f", true},
		{"echo 'x$(rm y)'", true},
		{"grep 'a&b' f", true},
		{`echo a\ b`, true},

		// Not readers.
		{"rm -rf /", false},
		{"git push", false},
		{"python3 x.py", false},
		{"", false},
		{"   ", false},
		{"cat x && rm y", false},
		{"ls || rm y", false},
		{"ls | sh", false},
		{"./ls", false},
		{"/tmp/cat f", false},
		// git reads configuration that runs programs (core.fsmonitor,
		// core.pager, diff drivers), so Codex asks for every git command.
		{"git status", false},
		{"git log --oneline -5", false},
		{"git branch -a", false},
		{"git branch newbranch", false},
		// Redirections to files.
		{"ls > out", false},
		{"ls >> out", false},
		{"ls &> out", false},
		{"ls 2> err", false},
		{"cat <> f", false},
		{"cat <<EOF\nx\nEOF", false},
		{"cat <<< $(id)", false},
		{"ls >| out", false},
		{"echo x >&3-", false},
		// Substitutions and expansions.
		{"echo $(rm x)", false},
		{"echo `rm x`", false},
		{"echo \"$(rm x)\"", false},
		{"cat <(rm x)", false},
		{"echo $HOME", false},
		{"echo \"$HOME\"", false},
		{"echo $((1+2))", false},
		{"cat {a,b}", false},
		{"sort {-o,out} in", false},
		{"sort *", false},
		{"sort -o*", false},
		{"cat \"\"*", false},
		// Background, subshells and other compound commands.
		{"ls & rm -rf x", false},
		{"ls &", false},
		{"(ls)", false},
		{"ls || (pwd && echo hi)", false},
		{"{ ls; }", false},
		{"for f in *; do cat $f; done", false},
		{"if true; then ls; fi", false},
		{"f() { ls; }; f", false},
		{"[[ -f x ]]", false},
		{"PAGER=sh ls", false},
		{"LD_PRELOAD=/tmp/x.so cat f", false},
		{"ls; exec sh", false},
		{"coproc ls", false},
		{"time ls", false},
		{"ls |& cat", true},
		{"echo 'unterminated", false},
		// find.
		{"find . -delete", false},
		{"find . -name x -exec rm {} ;", false},
		{"find . -execdir sh -c x ;", false},
		{"find . -ok rm {} ;", false},
		{"find . -fprint /tmp/x", false},
		{"find . -fprintf /tmp/x %p", false},
		{"find . -fls /tmp/x", false},
		// sed: only -n <range>p [file].
		{"sed -i s/a/b/ f", false},
		{"sed -n 1p -i f", false},
		{"sed -n 1p --in-place f", false},
		{"sed -n 1p --in-place=.bak f", false},
		{"sed -n -e 'w file' f", false},
		{"sed -n -e 'e id' f", false},
		{"sed -n 'w /tmp/x' f", false},
		{"sed -n '1p;w x' f", false},
		{"sed -n 1e f", false},
		{"sed -ni 1p f", false},
		{"sed -n 1p f g", false},
		{"sed s/a/b/ f", false},
		// sort: output, compression program, temp dir; GNU abbreviations.
		{"sort -o out in", false},
		{"sort -uo f in", false},
		{"sort -ofile in", false},
		{"sort --output=f in", false},
		{"sort --o=f in", false},
		{"sort --out f in", false},
		{"sort --compress-program=sh in", false},
		{"sort --comp=sh in", false},
		{"sort -T /tmp in", false},
		{"sort --temporary-directory=/tmp in", false},
		// Other tools' write and exec options.
		{"tree -o out", false},
		{"tree -R", false},
		{"uniq in out", false},
		{"rg -z foo", false},
		{"rg -iz foo", false},
		{"rg --search-zip foo", false},
		{"rg --pre cat foo", false},
		{"rg --pre=sh foo", false},
		{"rg --hostname-bin=sh foo", false},
		{"file -C -m x", false},
		{"file --compile -m x", false},
		{"file --comp -m x", false},
		{"base64 -o out f", false},
		{"base64 --output=out f", false},
		{"file -z f.gz", false},
		{"file --uncompress f.gz", false},
		{"cat < /dev/tcp/example.com/80", false},
		{"cat < /dev/null", true},
		{"echo x | tee out", false},
		{"ls | xargs rm", false},
		{"echo x >&2", true},
		{"echo x >&out", false},
		{"date -s 2020-01-01", false},
		{"date --set=2020-01-01", false},
	} {
		if got := IsKnownSafe(tc.cmd); got != tc.safe {
			t.Errorf("IsKnownSafe(%q) = %v, want %v", tc.cmd, got, tc.safe)
		}
	}
}

// TestKnownSafeFourthRound (issue 21, fourth pass): shapes a hostile
// model tried next, each of which runs or writes something while looking
// like a reader or a wrapper around one.
func TestKnownSafeFourthRound(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		safe bool
	}{
		{"env -S 'rm -rf x'", false},
		{"env -- cat f", false},
		{"xargs -a list cat", false},
		{"ls | xargs -I{} cat {}", false},
		{"find . -exec rm {} +", false},
		{"find . -execdir sh -c 'rm x' ';'", false},
		{"find . -ok rm {} ;", false},
		{"find . -fprintf out %p", false},
		{"find . -name x -delete", false},
		{"find . -name '-exec'", false}, // a value, not the primary: asks anyway (the judge does not parse find's expression)
		{"git -c core.pager='sh -c id' log", false},
		{"git -c core.fsmonitor=x status", false},
		{"awk 'BEGIN{system(\"rm x\")}'", false},
		{"sed -n '1e rm x' f", false},
		{"sed -n 1p f -i", false},
		{"sed -n '1w out' f", false},
		{"sed -n 1p -s", false},
		{"command rm x", false},
		{"command -p cat f", false},
		{"builtin cd /", false},
		{"exec cat f", false},
		{"eval cat f", false},
		{". ./x", false},
		{"source x", false},
		{"cat <<< $(rm x)", false},
		{"cat <<< 'x'", false},
		{"cat <(rm x)", false},
		{"diff <(ls) <(ls)", false},
		{"cat $'\\x2e/x'", true}, // ANSI-C quoting is a literal: cat ./x reads
		{"$'\\x72m' x", false},   // …and the name is judged after it: rm
		{"timeout 1 rm x", false},
		{"nice cat f", false},
		{"nohup cat f", false},
		{"time cat f", false},
		{"cat f >| out", false},
		{"cat f <> f", false},
		{"cat f > /dev/stdout", false},
		{"cat f 1>&3-", false},
		{"ls ~root", true}, // tilde: reads a directory listing only
		{"cd - && ls", true},
		{"CDPATH=/tmp cd x", false},
		{"echo x |& cat", true},
		{"coproc cat", false},
		{"cat f & ls", false},
		{"cat f; rm x", false},
		{"echo `rm x`", false},
		{"echo $((1))", false},
		{"tree -o out .", false},
		{"tree -R -H . .", false},
		{"rg --pre=sh x", false},
		{"rg --pr sh x", false},
		{"sort --comp=sh f", false},
		{"sort -uo out f", false},
		{"uniq -- in out", false},
	} {
		if got := IsKnownSafe(tc.cmd); got != tc.safe {
			t.Errorf("IsKnownSafe(%q) = %v, want %v", tc.cmd, got, tc.safe)
		}
	}
}

func BenchmarkIsKnownSafe(b *testing.B) {
	for b.Loop() {
		IsKnownSafe("grep -rn 'TODO' src/*.go | sort -u | head -20 && sed -n 1,5p main.go")
	}
}

// TestIsKnownSafeConcurrent: the tool calls of one reply are judged at
// once; the verdicts must not depend on it (the expander once shared a
// mutable config between calls, and a writing uniq ran unasked).
func TestIsKnownSafeConcurrent(t *testing.T) {
	cases := map[string]bool{
		"uniq -- f.txt out": false, "uniq f.txt": true, `find . -exe\c rm x ';'`: false,
		"cat a b": true, "sort -o x y": false, `echo "a b" 'c d'`: true,
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				for cmd, want := range cases {
					if got := IsKnownSafe(cmd); got != want {
						errs <- fmt.Sprintf("IsKnownSafe(%q) = %v", cmd, got)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
