package arch

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines is the longest a function may be (docs/architecture.md: functions that fit on
// a screen, none over 100 lines).
const maxFuncLines = 100

// longFuncs are the functions still over the limit, to be split; the test fails when one
// is gone from the list's view (split or renamed) so that the list only shrinks.
var longFuncs = map[string]bool{}

// TestNoFunctionOverAHundredLines walks the module's non-test Go files (the Bubble Tea fork
// under third_party is upstream's code) and fails on a function over maxFuncLines lines.
func TestNoFunctionOverAHundredLines(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	seen := map[string]bool{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "third_party" || name == "testdata" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return fmt.Errorf("parse %s: %w", path, err)
		}
		rel, _ := filepath.Rel(root, path)
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1
			key := rel + ":" + fd.Name.Name
			if n <= maxFuncLines {
				continue
			}
			if longFuncs[key] {
				seen[key] = true
				continue
			}
			t.Errorf("%s is %d lines (at most %d): split it along its concerns", key, n, maxFuncLines)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for key := range longFuncs {
		if !seen[key] {
			t.Errorf("%s is no longer over %d lines: remove it from longFuncs", key, maxFuncLines)
		}
	}
}
