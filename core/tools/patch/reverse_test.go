package patch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// applyTo applies patch text in dir the way apply_patch computes it and
// writes the results (no pins: the test owns dir).
func applyTo(t *testing.T, dir, text string) {
	t.Helper()
	changes, err := Compute(mustParse(t, text), dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range changes {
		switch {
		case c.Op == OpDelete:
			os.Remove(c.Path)
		case c.MoveTo != "":
			os.Remove(c.Path)
			os.WriteFile(c.MoveTo, []byte(c.New), 0o644)
		default:
			os.WriteFile(c.Path, []byte(c.New), 0o644)
		}
	}
}

func reader(dir string) func(string) (string, error) {
	return func(p string) (string, error) {
		b, err := os.ReadFile(Resolve(dir, p))
		return string(b), err
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const twoHunks = `*** Begin Patch
*** Update File: f.go
@@ func a() {
 func a() {
-	return 1
+	return 10
 }
@@ func c() {
 func c() {
-	return 3
+	return 30
+	// thirty
 }
*** Add File: new.txt
+hello
*** End Patch`

const base = "package f\n\nfunc a() {\n\treturn 1\n}\n\nfunc b() {\n\treturn 2\n}\n\nfunc c() {\n\treturn 3\n}\n"

func TestReverseOneHunkLeavesTheOther(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f.go"), []byte(base), 0o644)
	applyTo(t, dir, twoHunks)
	p := mustParse(t, twoHunks)
	u, err := Reverse(p, []Ref{{0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if err := u.Check(reader(dir)); err != nil {
		t.Fatal(err)
	}
	applyTo(t, dir, Format(u.Patch))
	want := strings.Replace(base, "return 1", "return 10", 1)
	if got := readFile(t, filepath.Join(dir, "f.go")); got != want {
		t.Fatalf("after reverting hunk 2:\n%s\nwant\n%s", got, want)
	}
	// The first hunk and the added file revert too; then the tree is as before.
	u, err = Reverse(p, []Ref{{0, 0}, {1, 0}})
	if err != nil {
		t.Fatal(err)
	}
	if err := u.Check(reader(dir)); err != nil {
		t.Fatal(err)
	}
	applyTo(t, dir, Format(u.Patch))
	if got := readFile(t, filepath.Join(dir, "f.go")); got != base {
		t.Fatalf("after reverting everything:\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "new.txt")); !os.IsNotExist(err) {
		t.Fatalf("new.txt still there: %v", err)
	}
}

func TestReverseRefusesWhatItCannotUndoExactly(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f.go"), []byte(base), 0o644)
	applyTo(t, dir, twoHunks)
	p := mustParse(t, twoHunks)
	// The user edited the changed line since.
	os.WriteFile(filepath.Join(dir, "f.go"), []byte(strings.Replace(readFile(t, filepath.Join(dir, "f.go")), "return 30", "return 31", 1)), 0o644)
	os.WriteFile(filepath.Join(dir, "new.txt"), []byte("hello, edited\n"), 0o644)
	for _, tc := range []struct {
		refs []Ref
		want string
	}{
		{[]Ref{{0, 1}}, "f.go changed since the patch: the lines of its hunk 1 are no longer there"},
		{[]Ref{{1, 0}}, "new.txt changed since it was added"},
	} {
		u, err := Reverse(p, tc.refs)
		if err != nil {
			t.Fatal(err)
		}
		if err := u.Check(reader(dir)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got %v, want %q", tc.refs, err, tc.want)
		}
	}
	// Twice the same lines: which one is unknown.
	os.WriteFile(filepath.Join(dir, "g"), []byte("x\ny\nx\ny\n"), 0o644)
	u, _ := Reverse(mustParse(t, update("g", "@@", " x", "+y")), []Ref{{0, 0}})
	if err := u.Check(reader(dir)); err == nil || !strings.Contains(err.Error(), "occur 2 times") {
		t.Errorf("ambiguous hunk: %v", err)
	}
	for _, tc := range []struct{ patch, want string }{
		{"*** Begin Patch\n*** Delete File: f.go\n*** End Patch", "a deleted file cannot be restored"},
		{update("f.go", "@@", "-\treturn 1"), "without context"},
	} {
		if _, err := Reverse(mustParse(t, tc.patch), []Ref{{0, 0}}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.patch, err, tc.want)
		}
	}
	if _, err := Reverse(p, []Ref{{5, 0}}); err == nil {
		t.Error("a file index out of range was accepted")
	}
}

func TestReverseMovesAFileBackOnlyWhole(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "old.go"), []byte(base), 0o644)
	move := update("old.go", "*** Move to: new.go", "@@ func a() {", "-\treturn 1", "+\treturn 10", "@@ func b() {", "-\treturn 2", "+\treturn 20")
	applyTo(t, dir, move)
	p := mustParse(t, move)
	one, _ := Reverse(p, []Ref{{0, 0}})
	if one.Patch.Files[0].MoveTo != "" || one.Patch.Files[0].Path != "new.go" {
		t.Fatalf("one hunk of a moved file: %+v", one.Patch.Files[0])
	}
	all, _ := Reverse(p, []Ref{{0, 0}, {0, 1}})
	if err := all.Check(reader(dir)); err != nil {
		t.Fatal(err)
	}
	applyTo(t, dir, Format(all.Patch))
	if got := readFile(t, filepath.Join(dir, "old.go")); got != base {
		t.Fatalf("moved back:\n%s", got)
	}
	// Something at the old path again: moving back would replace it.
	applyTo(t, dir, move)
	os.WriteFile(filepath.Join(dir, "old.go"), []byte("other\n"), 0o644)
	if err := all.Check(reader(dir)); err == nil || !strings.Contains(err.Error(), "exists again") {
		t.Fatalf("move back over a file: %v", err)
	}
}

func TestFormatParsesBack(t *testing.T) {
	p := mustParse(t, twoHunks)
	again := mustParse(t, Format(p))
	if Format(again) != Format(p) {
		t.Fatalf("format is not stable:\n%s\n---\n%s", Format(p), Format(again))
	}
}
