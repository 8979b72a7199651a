//go:build linux

package tools

// The differential fuzzer of the known-safe judge (issue 21): commands
// are generated from the known-safe list with random options, operands
// and expansions, judged by IsKnownSafe, and every one judged safe runs
// inside a read-only sandbox in a scratch directory. A write attempt (the
// kernel says "Read-only file system" or "Permission denied") or the
// execution of the scratch directory's program is a judge bug: under
// approval_policy=untrusted that command would have run without asking.
//
// `go test` runs the seed corpus (testdata/fuzz/FuzzKnownSafe) and a
// bounded generated batch (TestKnownSafeDifferential); `go test -fuzz
// FuzzKnownSafe ./core/tools/` searches for longer.

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/grovecli/grove/core/sandbox"
	"github.com/grovecli/grove/protocol"
)

// execMarker is what the scratch directory's program prints when run
// (computed by the shell, so reading the script does not print it).
const execMarker = "GROVE-FUZZ-42-EXECUTED"

// fuzzCommands are the known-safe list: what IsKnownSafe may pass.
func fuzzCommands() []string {
	names := []string{"find", "sed", "uniq"}
	for n := range safePlain {
		names = append(names, n)
	}
	for n := range optionRules {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// fuzzWords are options, operands and expansions the generator draws
// from: each command's writing options, generic ones, file names that
// exist, names that would be outputs, and every kind of expansion.
var fuzzWords = []string{
	"seed.txt", "a.txt", "out", "-pwn", "--", "-", "a*", "?.txt", "[ab].txt", "{a,b}.txt", "$HOME", "~", "'q*'", `"x y"`,
	"./pwn", "pwn", "1", "-n", "5p", "1,3p", "'1w out'", "'e ./pwn'", "-i", "-c", "-u", "-d", "-r", "-f", "1", "-s", "-w",
	"-o", "-oout", "--output=out", "--o=out", "--out", "-T", "--compress-program=./pwn", "--pre=./pwn", "-z", "-C", "-Z",
	"-exec", "./pwn", "';'", "-execdir", "-ok", "-delete", "-fprint", "-fls", "-fprintf", "-name", "-type", "-R", "--set=2001-01-01",
	"$(./pwn)", "`./pwn`", "<(./pwn)", "$((1+1))", "\\-o", "-\\o", "--outp\\ut=out",
}

var fuzzJoins = []string{" | ", " && ", " || ", "; ", " 2>&1 | ", " > out; ", " >/dev/null; "}

// byteSource turns fuzz input into choices (zero once exhausted).
type byteSource struct{ b []byte }

func (s *byteSource) pick(n int) int {
	if len(s.b) == 0 || n <= 0 {
		return 0
	}
	v := int(s.b[0])
	s.b = s.b[1:]
	return v % n
}

// genCommand builds one to three simple commands of the known-safe list
// with up to five words each. Input starting with "cmd:" is the command.
func genCommand(data []byte) string {
	if c, ok := strings.CutPrefix(string(data), "cmd:"); ok {
		return c
	}
	src := &byteSource{data}
	names := fuzzCommands()
	var b strings.Builder
	for i := 0; i <= src.pick(3); i++ {
		if i > 0 {
			b.WriteString(fuzzJoins[src.pick(len(fuzzJoins))])
		}
		b.WriteString(names[src.pick(len(names))])
		for j := 0; j < src.pick(6); j++ {
			b.WriteString(" " + fuzzWords[src.pick(len(fuzzWords))])
		}
	}
	return b.String()
}

var scratch struct {
	once sync.Once
	dir  string
	err  error
}

// scratchDir makes (once) the directory every command runs in: files
// for operands (a.txt and ab.txt so that a glob yields two) and ./pwn.
func scratchDir() (string, error) {
	scratch.once.Do(func() {
		dir, err := os.MkdirTemp("", "grove-fuzz-")
		if err != nil {
			scratch.err = err
			return
		}
		scratch.dir = dir
		files := map[string]string{"seed.txt": "b\na\na\n", "a.txt": "x\n", "ab.txt": "y\n", "b.txt": "z\n", "-pwn": "p\n",
			"pwn": "#!/bin/sh\necho GROVE-FUZZ-$((6*7))-EXECUTED\n"}
		for name, body := range files {
			mode := os.FileMode(0o644)
			if name == "pwn" {
				mode = 0o755
			}
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), mode); err != nil {
				scratch.err = err
				return
			}
		}
	})
	return scratch.dir, scratch.err
}

// runReadOnly runs cmd with bash in a read-only sandbox in dir and
// returns its output; a command still running after two seconds
// (tail -f) is stopped: hanging is not a write.
func runReadOnly(dir, cmd string) (string, error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return "", err
	}
	defer pr.Close()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "LANG=C"}
	p, err := sandbox.Start(sandbox.StartRequest{Policy: protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxReadOnly}, Cwd: dir, Dir: dir, Argv: []string{"bash", "-c", cmd}, Env: env, Out: pw})
	_ = pw.Close()
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		<-ctx.Done()
		if ctx.Err() == context.DeadlineExceeded {
			_ = p.Stop()
		}
	}()
	out, _ := io.ReadAll(io.LimitReader(pr, 1<<20))
	_, _ = io.Copy(io.Discard, pr)
	_, err = p.Wait()
	cancel()
	<-stopped
	return string(out), err
}

// judgeBug runs a command IsKnownSafe passed and says what it did that a
// safe command must not, or "".
func judgeBug(dir, cmd string) (string, error) {
	out, err := runReadOnly(dir, cmd)
	if err != nil {
		return "", fmt.Errorf("run %q: %w", cmd, err)
	}
	for _, sign := range []string{execMarker, "Read-only file system", "Permission denied", "Operation not permitted"} {
		// tac (and sort, on large input) spill into a private file of
		// their own in $TMPDIR: not a write the user can see or the model
		// choose (an assignment like TMPDIR=x makes a command unsafe).
		if strings.Contains(out, sign) && !strings.Contains(out, "failed to create temporary file") {
			return fmt.Sprintf("%q judged safe, but: %s\n%.500s", cmd, sign, out), nil
		}
	}
	return "", nil
}

func requireReadOnlySandbox(t testing.TB) {
	t.Helper()
	if _, err := sandbox.Supported(); err != nil {
		t.Skipf("no Landlock: %v", err)
	}
}

func FuzzKnownSafe(f *testing.F) {
	requireReadOnlySandbox(f)
	dir, err := scratchDir()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cmd := genCommand(data)
		if !IsKnownSafe(cmd) {
			return
		}
		bug, err := judgeBug(dir, cmd)
		if err != nil {
			t.Fatal(err)
		}
		if bug != "" {
			t.Fatal(bug)
		}
	})
}

// TestKnownSafeDifferential is the bounded run in plain `go test`: a
// fixed-seed batch of generated commands (the same every run), every one
// judged safe run in the read-only sandbox.
func TestKnownSafeDifferential(t *testing.T) {
	requireReadOnlySandbox(t)
	dir, err := scratchDir()
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(21, 2026))
	const tries, maxRuns = 4000, 40
	tried, ran := 0, 0
	for ; tried < tries && ran < maxRuns; tried++ {
		data := make([]byte, 24)
		for i := range data {
			data[i] = byte(r.UintN(256))
		}
		cmd := genCommand(data)
		if !IsKnownSafe(cmd) {
			continue
		}
		ran++
		bug, err := judgeBug(dir, cmd)
		if err != nil {
			t.Fatal(err)
		}
		if bug != "" {
			t.Error(bug)
		}
	}
	t.Logf("generated %d commands, %d judged safe and run read-only", tried, ran)
	if ran < 20 {
		t.Fatalf("only %d of %d generated commands were judged safe: the generator no longer exercises the judge", ran, tried)
	}
}
