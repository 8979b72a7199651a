package tui

import (
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

func renderPlain(src string, w int) string {
	var m markdown
	return ansi.Strip(m.render(src, w))
}

func TestMarkdownBlocks(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"heading and paragraph", "# Title\n\nsome *text*\nmore", "Title\n\nsome text more"},
		{"setext heading", "Title\n=====\nbody", "Title\nbody"},
		{"emphasis and code", "a **b** _c_ `d*e*` ~~f~~ snake_case_name", "a b c d*e* f snake_case_name"},
		{"escapes", `\*not italic\* and \` + "`x`", "*not italic* and `x`"},
		{"link", "see [the docs](https://x.dev \"t\") or <https://y.dev>", "see the docs (https://x.dev) or https://y.dev"},
		{"link same as url", "[https://x.dev](https://x.dev)", "https://x.dev"},
		{"bullets and tasks", "- one\n* two\n  - nested\n- [ ] todo\n- [x] done", "• one\n• two\n  • nested\n☐ todo\n☑ done"},
		{"ordered", "1. first\n2) second\n   continued", "1. first\n2) second continued"},
		{"quote", "> quoted\n> **line**", "│ quoted line"},
		{"fenced code keeps text", "```sh\n  ls -l *.go\n# not a heading\n```\nafter", "sh\n    ls -l *.go\n  # not a heading\n\nafter"},
		{"tilde fence and unclosed", "~~~\nx\n", "  x"},
		{"indented code", "para\n\n    code line\n    more", "para\n\n  code line\n  more"},
		{"rule", "a\n\n---\n\nb", "a\n\n" + strings.Repeat("─", 40) + "\n\nb"},
		{"table", "| a | b |\n|---|--:|\n| x | 10 |\n| yy | 2 |", "a  │  b\n───┼───\nx  │ 10\nyy │  2"},
		{"pipe in code cell", "| c |\n|---|\n| `a|b` |", "c\n───\na|b"},
		{"hard break", "one  \ntwo\\\nthree", "one\ntwo\nthree"},
		{"tab-indented continuation", "- a\n\tb\n- c\n\t\td", "• a b\n• c d"},
		{"tab under an ordered item", "1. a\n\tb", "1. a b"},
		{"entities and references", "a &amp; b &#35; [ref][1] ![alt](p.png)\n\n[1]: https://r.dev", "a & b # ref (https://r.dev) alt (p.png)"},
		{"table right after text", "intro\n| a |\n|---|\n| 1 |\nouttro", "intro\n\na\n─\n1\n\nouttro"},
		{"single tildes stay", "~a~ and ~~~b~~~", "~a~ and ~~~b~~~"},
		{"raw html block verbatim", "<div>\nx\n</div>", "<div>\nx\n</div>"},
		{"unmatched markers stay", "2 * 3 = 6 and a_b and **open", "2 * 3 = 6 and a_b and **open"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := renderPlain(tc.src, 60)
			trimmed := make([]string, 0)
			for _, l := range strings.Split(got, "\n") {
				trimmed = append(trimmed, strings.TrimRight(l, " "))
			}
			if g := strings.Join(trimmed, "\n"); g != tc.want {
				t.Fatalf("render(%q)\n got: %q\nwant: %q", tc.src, g, tc.want)
			}
		})
	}
}

// goldmark splits text at every possible delimiter; the pieces must not
// become places a line can break.
func TestMarkdownNoBreakInsideWord(t *testing.T) {
	got := renderPlain("xxxxxxxxxx snake_case_name", 20)
	if got != "xxxxxxxxxx\nsnake_case_name" {
		t.Fatalf("got %q", got)
	}
}

func TestMarkdownStylesSpans(t *testing.T) {
	var m markdown
	out := m.render("**bold `code` still bold**", 80)
	// Each piece carries its own complete style, so bold survives the code
	// span instead of ending at its reset.
	if !strings.Contains(out, lipgloss.NewStyle().Bold(true).Render("still")) {
		t.Fatalf("bold lost after inline code: %q", out)
	}
}

// No line is ever wider than asked, whatever the input.
func TestMarkdownFitsWidth(t *testing.T) {
	src := strings.Join([]string{
		"# A heading that is quite long indeed, longer than narrow widths",
		"A paragraph with averyveryverylongwordthatcannotbreak and `inline code spans` and [a link](https://example.com/a/very/long/path/that/goes/on).",
		"- a list item that wraps onto a second line at narrow widths\n  1. nested ordered item with more words",
		"> a quote with **bold** words that wraps",
		"```\n" + strings.Repeat("x", 120) + "\n\tindented\twith tabs\n```",
		"| column one | column two is wide | three |\n|---|:-:|--:|\n| " + strings.Repeat("cell ", 20) + " | b | c |",
		"日本語のテキストも折り返します。日本語のテキストも折り返します。",
	}, "\n\n")
	for w := 8; w <= 100; w += 7 {
		var m markdown
		for i, l := range strings.Split(m.render(src, w), "\n") {
			if lw := lipgloss.Width(l); lw > w {
				t.Fatalf("width %d: line %d is %d wide: %q", w, i, lw, ansi.Strip(l))
			}
		}
	}
}

func FuzzMarkdown(f *testing.F) {
	for _, s := range []string{"# x", "- [x] a\n  b", "| a |\n|---|\n| b |", "```\nx", "**a _b_ `c`**", "[a](b", "> > q", "\t\tx", "1) a"} {
		f.Add(s, 20)
	}
	f.Fuzz(func(t *testing.T, src string, w int) {
		w = 8 + abs(w)%120
		var m markdown
		for _, l := range strings.Split(m.render(src, w), "\n") {
			if lw := lipgloss.Width(l); lw > w {
				t.Fatalf("width %d: line %q is %d wide", w, ansi.Strip(l), lw)
			}
		}
	})
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// BenchmarkMarkdownRender: a typical finished answer, and inputs built to
// make a careless inline parser quadratic (unclosed backticks, brackets,
// emphasis markers).
func BenchmarkMarkdownRender(b *testing.B) {
	typical := strings.Repeat("## Step\n\nSome **bold** text with `code` and a [link](https://x.dev).\n\n- item one\n- item two\n\n```go\nfunc main() {}\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n", 20)
	for _, c := range []struct{ name, src string }{
		{"typical", typical},
		{"unclosed-backticks", strings.Repeat("`a ", 6000)},
		{"unclosed-brackets", strings.Repeat("[a ", 6000)},
		{"emphasis-markers", strings.Repeat("*a _b ", 6000)},
	} {
		b.Run(c.name, func(b *testing.B) {
			var m markdown
			for b.Loop() {
				_ = m.render(c.src, 100)
			}
		})
	}
}
