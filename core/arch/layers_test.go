package arch

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const module = "github.com/grovecli/grove"

// knownViolations lists imports that still run up the table, each with the reason it is
// tolerated; the test fails when one disappears so the list only shrinks.
var knownViolations = map[string]string{}

// layer is one row of docs/architecture.md's table: its name and package patterns.
type layer struct {
	name     string
	patterns []string
}

var rowCell = regexp.MustCompile("`([^`]+)`")

// readLayers parses the layer table (rows between the header and the first blank line).
func readLayers(t *testing.T, doc string) []layer {
	t.Helper()
	f, err := os.Open(doc)
	if err != nil {
		t.Fatalf("open %s: %v", doc, err)
	}
	defer f.Close()
	var layers []layer
	inTable := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "| layer | packages |"):
			inTable = true
		case inTable && strings.HasPrefix(line, "|---"):
		case inTable && strings.HasPrefix(line, "|"):
			cells := strings.Split(line, "|")
			if len(cells) < 4 {
				t.Fatalf("%s: table row without a packages cell: %q", doc, line)
			}
			l := layer{name: strings.TrimSpace(cells[1])}
			for _, m := range rowCell.FindAllStringSubmatch(cells[2], -1) {
				l.patterns = append(l.patterns, m[1])
			}
			layers = append(layers, l)
		case inTable:
			return layers
		}
	}
	if len(layers) == 0 {
		t.Fatalf("%s: no layer table found", doc)
	}
	return layers
}

// rank is the row a package belongs to (0 = top), or -1 when no row names it.
func rank(layers []layer, pkg string) int {
	for i, l := range layers {
		for _, p := range l.patterns {
			if base, ok := strings.CutSuffix(p, "/..."); ok {
				if strings.HasPrefix(pkg, base+"/") {
					return i
				}
			} else if pkg == p {
				return i
			}
		}
	}
	return -1
}

// packageImports lists the module's packages with their non-test imports inside the module.
func packageImports(t *testing.T, root string) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(strings.TrimPrefix(fields[0], module), "/")
		pkgs[pkg] = nil
		for _, imp := range fields[1:] {
			if rest, ok := strings.CutPrefix(imp, module+"/"); ok {
				pkgs[pkg] = append(pkgs[pkg], rest)
			}
		}
	}
	return pkgs
}

func TestImportsFollowTheLayers(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	layers := readLayers(t, filepath.Join(root, "docs", "architecture.md"))
	seen := map[string]bool{}
	for pkg, imports := range packageImports(t, root) {
		from := rank(layers, pkg)
		if pkg == "core/arch" {
			continue
		}
		if from < 0 {
			t.Errorf("%s is in no row of docs/architecture.md's layer table: add it to the layer it belongs to", pkg)
			continue
		}
		for _, imp := range imports {
			to := rank(layers, imp)
			edge := fmt.Sprintf("%s -> %s", pkg, imp)
			if to >= from || to < 0 {
				continue
			}
			if _, ok := knownViolations[edge]; ok {
				seen[edge] = true
				continue
			}
			t.Errorf("%s imports %s: layer %q may not import the higher layer %q (docs/architecture.md)",
				pkg, imp, layers[from].name, layers[to].name)
		}
	}
	for edge := range knownViolations {
		if !seen[edge] {
			t.Errorf("known violation %q is gone: remove it from knownViolations", edge)
		}
	}
}
