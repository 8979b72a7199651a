package patch

import (
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []FilePatch
	}{
		{"add, update with move and two hunks, delete",
			"*** Begin Patch\n*** Add File: a.txt\n+one\n+\n+two\n*** Update File: b.go\n*** Move to: c.go\n@@ func F() {\n ctx\n-old\n+new\n@@\n-x\n*** End of File\n*** Delete File: d.txt\n*** End Patch",
			[]FilePatch{
				{Op: OpAdd, Path: "a.txt", Contents: "one\n\ntwo\n", Line: 2},
				{Op: OpUpdate, Path: "b.go", MoveTo: "c.go", Line: 6, Hunks: []Hunk{
					{Header: "func F() {", Line: 8, Lines: []Line{{' ', "ctx"}, {'-', "old"}, {'+', "new"}}},
					{Line: 12, Lines: []Line{{'-', "x"}}, EndOfFile: true},
				}},
				{Op: OpDelete, Path: "d.txt", Line: 15},
			}},
		{"first hunk without @@",
			"*** Begin Patch\n*** Update File: f\n a\n-b\n*** End Patch",
			[]FilePatch{{Op: OpUpdate, Path: "f", Line: 2, Hunks: []Hunk{{Line: 3, Lines: []Line{{' ', "a"}, {'-', "b"}}}}}}},
		{"blank lines: inside a hunk are context, around sections are ignored",
			"\n\n*** Begin Patch\n\n*** Update File: f\n@@\n a\n\n-b\n\n\n*** Add File: g\n+x\n\n+y\n\n*** End Patch\n\n",
			[]FilePatch{
				{Op: OpUpdate, Path: "f", Line: 5, Hunks: []Hunk{{Line: 6, Lines: []Line{{' ', "a"}, {' ', ""}, {'-', "b"}}}}},
				{Op: OpAdd, Path: "g", Contents: "x\n\ny\n", Line: 12},
			}},
		{"CRLF, BOM and heredoc",
			"\ufeffapply_patch <<'EOF'\r\n*** Begin Patch\r\n*** Delete File: x\r\n*** End Patch\r\nEOF\r\n",
			[]FilePatch{{Op: OpDelete, Path: "x", Line: 3}}},
		{"bare heredoc with double quotes",
			"<<\"PATCH\"\n*** Begin Patch\n*** Delete File: x\n*** End Patch\nPATCH",
			[]FilePatch{{Op: OpDelete, Path: "x", Line: 3}}},
		{"unified-diff ranges in the @@ line are dropped",
			"*** Begin Patch\n*** Update File: f\n@@ -3,4 +3,5 @@ func main() {\n-a\n+b\n*** End Patch",
			[]FilePatch{{Op: OpUpdate, Path: "f", Line: 2, Hunks: []Hunk{{Header: "func main() {", Line: 3, Lines: []Line{{'-', "a"}, {'+', "b"}}}}}}},
		{"header without a space after the colon, surrounding spaces trimmed",
			"*** Begin Patch\n*** Add File:x.txt  \n+1\n*** End Patch",
			[]FilePatch{{Op: OpAdd, Path: "x.txt", Contents: "1\n", Line: 2}}},
		{"rename only",
			"*** Begin Patch\n*** Update File: a\n*** Move to: b\n*** End Patch",
			[]FilePatch{{Op: OpUpdate, Path: "a", MoveTo: "b", Line: 2}}},
		{"empty added file",
			"*** Begin Patch\n*** Add File: empty\n*** End Patch",
			[]FilePatch{{Op: OpAdd, Path: "empty", Line: 2}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Parse(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p.Files, tc.want) {
				t.Errorf("got  %+v\nwant %+v", p.Files, tc.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "invalid patch at line 1: the patch is empty; it must start with '*** Begin Patch' and end with '*** End Patch'"},
		{"\n \n", "invalid patch at line 1: the patch is empty; it must start with '*** Begin Patch' and end with '*** End Patch'"},
		{"hello", "invalid patch at line 1: the first line must be '*** Begin Patch'"},
		{"*** Begin Patch", "invalid patch at line 1: the last line must be '*** End Patch'"},
		{"*** Begin Patch\n*** Add File: a\n+x", "invalid patch at line 3: the last line must be '*** End Patch'"},
		{"*** Begin Patch\n*** End Patch", "invalid patch at line 1: the patch changes no files"},
		{"*** Begin Patch\n*** Frobnicate: a\n*** End Patch", `invalid patch at line 2: expected '*** Add File:', '*** Update File:' or '*** Delete File:', got "*** Frobnicate: a"`},
		{"*** Begin Patch\n*** Add File: a\nno plus\n*** End Patch", `invalid patch at line 3: every line of an added file must start with '+' (file a, got "no plus")`},
		{"*** Begin Patch\n*** Add File: \n+x\n*** End Patch", `invalid patch at line 2: missing file path after "*** Add File:"`},
		{"*** Begin Patch\n*** Update File: f\n*** End Patch", "invalid patch at line 2: update of f has no hunks"},
		{"*** Begin Patch\n*** Update File: f\n*** Move to:\n@@\n-a\n*** End Patch", "invalid patch at line 3: missing path after '*** Move to:' (file f)"},
		{"*** Begin Patch\n*** Update File: f\n@@\n*** End Patch", "invalid patch at line 3: empty hunk in f: a hunk needs ' ', '-' or '+' lines"},
		{"*** Begin Patch\n*** Update File: f\n@@\n-a\n*** End of File\nstray\n*** End Patch", `invalid patch at line 6: expected '@@' to start the next hunk of f, got "stray"`},
		{"*** Begin Patch\n*** Update File: f\n@@\n-a\n\tbad\n*** End Patch", `invalid patch at line 5: hunk lines must start with ' ', '-' or '+' (got "\tbad" in f)`},
	} {
		_, err := Parse(tc.in)
		if err == nil || err.Error() != tc.want {
			t.Errorf("Parse(%q)\n got  %v\n want %s", tc.in, err, tc.want)
		}
	}
}

func TestHunkOldNew(t *testing.T) {
	h := Hunk{Lines: []Line{{' ', "a"}, {'-', "b"}, {'+', "B"}, {' ', "c"}}}
	if got := strings.Join(h.Old(), ","); got != "a,b,c" {
		t.Errorf("Old = %s", got)
	}
	if got := strings.Join(h.New(), ","); got != "a,B,c" {
		t.Errorf("New = %s", got)
	}
}
