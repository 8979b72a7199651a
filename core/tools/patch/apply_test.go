package patch

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func mustParse(t *testing.T, s string) *Patch {
	t.Helper()
	p, err := Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func update(path string, body ...string) string {
	return "*** Begin Patch\n*** Update File: " + path + "\n" + strings.Join(body, "\n") + "\n*** End Patch"
}

func TestComputeUpdate(t *testing.T) {
	for _, tc := range []struct {
		name, file, patch, want string
	}{
		{"End of File prefers the match at the end",
			"x\ny\nx\ny\n", update("f", "@@", " x", "-y", "+Y", "*** End of File"), "x\ny\nx\nY\n"},
		{"a file without a final newline keeps it that way",
			"a\nb", update("f", "@@", "-b", "+c"), "a\nc"},
		{"an empty file gets a final newline",
			"", update("f", "@@", "+hello"), "hello\n"},
		{"a pure insertion without a header appends",
			"a\n", update("f", "@@", "+b"), "a\nb\n"},
		{"the @@ line repeated as the first context line",
			"func A() {\n\treturn 1\n}\n", update("f", "@@ func A() {", " func A() {", "-\treturn 1", "+\treturn 2"), "func A() {\n\treturn 2\n}\n"},
		{"a trailing blank context line may stand for the end of the file",
			"a\nb\n", update("f", "@@", " a", "-b", "+c", " "), "a\nc\n"},
		{"CRLF file with fuzzy context",
			"a  \r\nb\r\n", update("f", "@@", " a", "-b", "+c"), "a  \r\nc\r\n"},
		{"non-breaking space and dashes in the file",
			"x\u00a0=\u00a01 \u2013 2\n", update("f", "@@", "-x = 1 - 2", "+x = 3"), "x = 3\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "f"), []byte(tc.file), 0o644); err != nil {
				t.Fatal(err)
			}
			ch, err := Compute(mustParse(t, tc.patch), dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(ch) != 1 || ch[0].New != tc.want || ch[0].Old != tc.file {
				t.Errorf("got %q, want %q", ch[0].New, tc.want)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "f")); string(b) != tc.file {
				t.Error("Compute wrote to disk")
			}
		})
	}
}

func TestComputeErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ patch, want string }{
		{update("f", "@@", "-two", "+2", "@@", " three", "-four"),
			`f: hunk 2 of 2 (patch line 6, starting "three") does not apply: its 2 context/removed lines were not found after line 2; re-read the file and send a patch against its current content`},
		{update("f", "@@", "-one", "+1", "@@", "-one", "+uno"),
			`f: hunk 2 of 2 (patch line 6, starting "one") does not apply: its 1 context/removed lines were not found after line 1`},
		{update("f", "@@ missing", "-one"), `f: hunk 1 of 1 (patch line 3, starting "one") does not apply: its @@ line "missing" was not found`},
		{update("d", "@@", "-x"), "d: cannot update: it is a directory"},
		{update("f", "*** Move to: d", "@@", "-one"), "f: cannot move to d: it is a directory"},
		{"*** Begin Patch\n*** Delete File: f\n*** Update File: f\n@@\n-one\n*** End Patch", "f: cannot update: no such file (an earlier section of this patch removed it)"},
		{"*** Begin Patch\n*** Add File: d\n+x\n*** End Patch", "d: cannot add: the file already exists"},
	} {
		_, err := Compute(mustParse(t, tc.patch), dir)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q:\n got  %v\n want %s", tc.patch, err, tc.want)
		}
	}
}

func TestWriteRollsBackOnFailure(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.txt")
	gone := filepath.Join(dir, "gone.txt")
	blocker := filepath.Join(dir, "blocker")
	for p, c := range map[string]string{a: "old\n", gone: "bye\n", blocker: "a file, not a directory\n"} {
		if err := os.WriteFile(p, []byte(c), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	changes := []Change{
		{Op: OpUpdate, Path: a, New: "new\n"},
		{Op: OpDelete, Path: gone},
		{Op: OpAdd, Path: filepath.Join(dir, "newdir", "deep", "n.txt"), New: "n\n"},
		{Op: OpUpdate, Path: a, MoveTo: filepath.Join(dir, "moved.txt"), New: "moved\n"},
		{Op: OpAdd, Path: filepath.Join(blocker, "x.txt"), New: "x\n"}, // fails: parent is a file
	}
	err := pinAndWrite(t, dir, changes)
	if err == nil || !strings.Contains(err.Error(), "no files were changed") {
		t.Fatalf("Write = %v", err)
	}
	if b, _ := os.ReadFile(a); string(b) != "old\n" {
		t.Errorf("a.txt = %q", b)
	}
	if st, err := os.Stat(a); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("a.txt mode not restored: %v %v", st, err)
	}
	if b, _ := os.ReadFile(gone); string(b) != "bye\n" {
		t.Errorf("gone.txt = %q", b)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, ","); got != "a.txt,blocker,gone.txt" {
		t.Errorf("directory after rollback: %s", got)
	}
}

func TestWriteKeepsModeAndSymlinks(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.sh")
	if err := os.WriteFile(real, []byte("echo a\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.sh")
	if err := os.Symlink("real.sh", link); err != nil {
		t.Fatal(err)
	}
	ch, err := Compute(mustParse(t, update("link.sh", "@@", "-echo a", "+echo b")), dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := pinAndWrite(t, dir, ch); err != nil {
		t.Fatal(err)
	}
	if target, err := os.Readlink(link); err != nil || target != "real.sh" {
		t.Errorf("symlink replaced: %q %v", target, err)
	}
	st, _ := os.Stat(real)
	if b, _ := os.ReadFile(real); string(b) != "echo b\n" || st.Mode().Perm() != 0o755 {
		t.Errorf("real.sh = %q mode %v", b, st.Mode())
	}
}

func TestSeek(t *testing.T) {
	lines := []string{"a", "  b  ", "c", "a", "b", "c"}
	for _, tc := range []struct {
		pattern []string
		start   int
		eof     bool
		want    int
	}{
		{[]string{"a", "b"}, 0, false, 3}, // exact match wins over a fuzzy earlier one
		{[]string{"a", "b", "c"}, 0, false, 3},
		{[]string{"  b"}, 0, false, 1}, // trailing whitespace ignored
		{[]string{"b"}, 0, false, 4},   // exact at 4 beats trimmed at 1
		{[]string{"b"}, 5, false, -1},
		{[]string{"c"}, 0, true, 5},
		{[]string{"a", "  b  "}, 1, false, 3}, // surrounding whitespace ignored
		{[]string{"a", "x"}, 0, false, -1},
		{nil, 2, false, 2},
		{[]string{"a", "b", "c", "a", "b", "c", "d"}, 0, false, -1},
	} {
		if got := seek(lines, tc.pattern, tc.start, tc.eof); got != tc.want {
			t.Errorf("seek(%q, %d, %v) = %d, want %d", tc.pattern, tc.start, tc.eof, got, tc.want)
		}
	}
}

// pinAndWrite writes changes confined beneath root, which must hold them.
func pinAndWrite(t *testing.T, root string, changes []Change) error {
	t.Helper()
	pins := NewPins([]string{root})
	t.Cleanup(func() { _ = pins.Close() })
	outside, err := pins.Pin(changes)
	if err != nil || len(outside) > 0 {
		t.Fatalf("Pin = %v, %v", outside, err)
	}
	return Write(changes, pins)
}

// Deleting or moving a symlink acts on the link (the file it names stays),
// and a rollback puts the link back as a link.
func TestWriteDeletesAndRestoresSymlinks(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.txt")
	if err := os.WriteFile(real, []byte("r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink("real.txt", link); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "blocker"), []byte("file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Rolled back: the delete is undone after a later failure.
	failing := []Change{
		{Op: OpDelete, Path: link},
		{Op: OpAdd, Path: filepath.Join(dir, "blocker", "x.txt"), New: "x\n"},
	}
	if err := pinAndWrite(t, dir, failing); err == nil {
		t.Fatal("want a failure")
	}
	if target, err := os.Readlink(link); err != nil || target != "real.txt" {
		t.Fatalf("link not restored: %q %v", target, err)
	}
	// Done: the link goes, the file it named stays.
	if err := pinAndWrite(t, dir, []Change{{Op: OpDelete, Path: link}}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(link); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("link still there: %v", err)
	}
	if b, _ := os.ReadFile(real); string(b) != "r\n" {
		t.Errorf("real.txt = %q", b)
	}
}
