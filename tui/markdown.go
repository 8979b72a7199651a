package tui

import (
	"strconv"
	"strings"
	"sync"
	"unicode"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// markdown renders finished assistant messages as terminal lines: CommonMark
// blocks (headings, paragraphs, lists, quotes, fenced and indented code,
// rules) plus the GFM parts models use (tables, task lists, strikethrough).
//
// github.com/yuin/goldmark's parser (CommonMark; ~0.4 ms of package init)
// parses, and the AST is drawn here with lipgloss styles. goldmark's own
// GFM extension package is not linked: its
// package init compiles linkify's large regexps (~0.6 ms in every grove
// process, the sandbox helper re-exec included, against a 3 ms budget), so
// strikethrough is a small inline parser (markdown_gfm.go), and a table or
// task item is recognised in the paragraph goldmark hands us. Code blocks
// are shown verbatim in one style, without syntax highlighting.
type markdown struct{}

// mdStyles are the Markdown styles, built on first use.
type mdStyles struct {
	h1, h2, h3, code, codeBlock, quote, rule, link, bullet, tableHead, tableBorder lipgloss.Style
	bold, italic, strike                                                           lipgloss.Style
}

var (
	mdStylesOnce sync.Once
	mdStyle      mdStyles
)

func markdownStyles() *mdStyles {
	mdStylesOnce.Do(func() {
		accent := lipgloss.Color("#7D56F4")
		gray := lipgloss.Color("#8B949E")
		codeFg := lipgloss.Color("#E6B673")
		mdStyle = mdStyles{
			h1:          lipgloss.NewStyle().Bold(true).Underline(true).Foreground(accent),
			h2:          lipgloss.NewStyle().Bold(true).Foreground(accent),
			h3:          lipgloss.NewStyle().Bold(true),
			code:        lipgloss.NewStyle().Foreground(codeFg),
			codeBlock:   lipgloss.NewStyle().Foreground(codeFg),
			quote:       lipgloss.NewStyle().Foreground(gray),
			rule:        lipgloss.NewStyle().Foreground(gray),
			link:        lipgloss.NewStyle().Foreground(gray).Underline(true),
			bullet:      lipgloss.NewStyle().Foreground(accent),
			tableHead:   lipgloss.NewStyle().Bold(true),
			tableBorder: lipgloss.NewStyle().Foreground(gray),
			bold:        lipgloss.NewStyle().Bold(true),
			italic:      lipgloss.NewStyle().Italic(true),
			strike:      lipgloss.NewStyle().Strikethrough(true),
		}
	})
	return &mdStyle
}

// render returns text as styled lines at most w columns wide.
func (markdown) render(text string, w int) string {
	w = max(w, 8)
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	for i, l := range lines {
		// Tabs become spaces first, so indentation counts bytes.
		lines[i] = expandTabs(l)
	}
	out := renderMarkdown(strings.Join(lines, "\n"), w, markdownStyles())
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	for i, l := range out {
		// Only pathological nesting overflows; never draw past the edge.
		if lipgloss.Width(l) > w {
			out[i] = ansi.Truncate(l, w, "…")
		}
	}
	return strings.Join(out, "\n")
}

// renderBlocks renders a sequence of Markdown lines (a document, a quote's
// or a list item's content).
// renderMarkdown parses src and draws its blocks at most w columns wide.
func renderMarkdown(src string, w int, st *mdStyles) []string {
	source := []byte(src)
	doc := markdownParser().Parse(text.NewReader(source))
	return renderChildren(doc, source, w, st)
}

var (
	mdParserOnce sync.Once
	mdParser     parser.Parser
)

// markdownParser is goldmark's CommonMark parser plus strikethrough, built
// on first use.
func markdownParser() parser.Parser {
	mdParserOnce.Do(func() {
		// The parser alone: the goldmark package would also link (and
		// initialise) its HTML renderer.
		mdParser = parser.NewParser(
			parser.WithBlockParsers(parser.DefaultBlockParsers()...),
			parser.WithInlineParsers(append(parser.DefaultInlineParsers(), util.Prioritized(strikethroughParser{}, 500))...),
			parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
		)
	})
	return mdParser
}

// renderChildren draws the block children of n, keeping one blank line
// where the source had one and around code, quotes, rules and tables.
func renderChildren(n ast.Node, src []byte, w int, st *mdStyles) []string {
	if w < 6 {
		// Too deeply nested for structure: plain wrapped text.
		return wrapSpans(plainSpans(n, src), max(w, 2), "", "")
	}
	var out []string
	blank := func() {
		if len(out) > 0 && out[len(out)-1] != "" {
			out = append(out, "")
		}
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if c.HasBlankPreviousLines() {
			blank()
		}
		switch b := c.(type) {
		case *ast.Paragraph, *ast.TextBlock:
			if t, ok := findTable(b, src); ok {
				if t.before != "" {
					out = append(out, wrapSpans(inlineMarkdown(t.before), w, "", "")...)
				}
				blank()
				out = append(out, tableLines(t.rows, t.aligns, w, st)...)
				blank()
				if t.after != "" {
					out = append(out, wrapSpans(inlineMarkdown(t.after), w, "", "")...)
				}
				continue
			}
			out = append(out, wrapSpans(inlineSpans(b, src, span{}), w, "", "")...)
		case *ast.Heading:
			blank()
			out = append(out, headingLines(b, src, w, st)...)
		case *ast.ThematicBreak:
			blank()
			out = append(out, st.rule.Render(strings.Repeat("─", min(w, 40))))
			blank()
		case *ast.FencedCodeBlock:
			blank()
			out = append(out, codeLines(blockLines(b, src), string(b.Language(src)), w, st)...)
			blank()
		case *ast.CodeBlock:
			blank()
			out = append(out, codeLines(blockLines(b, src), "", w, st)...)
			blank()
		case *ast.Blockquote:
			blank()
			for _, l := range renderChildren(b, src, w-2, st) {
				out = append(out, st.quote.Render("│ ")+l)
			}
			blank()
		case *ast.List:
			out = append(out, listLines(b, src, w, st)...)
		case *ast.HTMLBlock:
			lines := blockLines(b, src)
			if b.HasClosure() {
				lines = append(lines, string(b.ClosureLine.Value(src)))
			}
			for _, l := range lines {
				out = append(out, wrapSpans([]span{{text: strings.TrimRight(l, "\n")}}, w, "", "")...)
			}
		default:
			out = append(out, renderChildren(b, src, w, st)...)
		}
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// listLines draws a list's items behind their bullets ("• ", "3. ", a
// task box).
func listLines(l *ast.List, src []byte, w int, st *mdStyles) []string {
	var out []string
	num := l.Start
	for item := l.FirstChild(); item != nil; item = item.NextSibling() {
		bullet := "• "
		if l.IsOrdered() {
			bullet = strconv.Itoa(num) + string(l.Marker) + " "
			num++
		}
		if item != l.FirstChild() && item.HasBlankPreviousLines() {
			out = append(out, "")
		}
		if box, ok := taskBox(item, src); ok {
			bullet = box
		}
		bw := lipgloss.Width(bullet)
		pad := strings.Repeat(" ", bw)
		body := renderChildren(item, src, w-bw, st)
		if len(body) == 0 {
			body = []string{""}
		}
		for j, line := range body {
			switch {
			case j == 0:
				out = append(out, st.bullet.Render(bullet)+line)
			case line == "":
				out = append(out, "")
			default:
				out = append(out, pad+line)
			}
		}
	}
	return out
}

// taskBox recognises a GFM task item ("[ ] todo", "[x] done"): it returns
// the box to draw and removes the marker from the item's first text.
func taskBox(item ast.Node, src []byte) (string, bool) {
	first := item.FirstChild()
	if first == nil || (first.Kind() != ast.KindParagraph && first.Kind() != ast.KindTextBlock) {
		return "", false
	}
	lines := first.Lines()
	if lines.Len() == 0 {
		return "", false
	}
	line := lines.At(0)
	v := line.Value(src)
	if len(v) < 3 || v[0] != '[' || v[2] != ']' || (v[1] != ' ' && v[1] != 'x' && v[1] != 'X') || len(v) > 3 && v[3] != ' ' && v[3] != '\t' {
		return "", false
	}
	// Drop the marker from the inline text ("[" may be a text node of its own).
	end := line.Start + min(4, len(v))
	for c := first.FirstChild(); c != nil; {
		t, ok := c.(*ast.Text)
		if !ok || t.Segment.Start >= end {
			break
		}
		next := c.NextSibling()
		if t.Segment.Stop <= end {
			first.RemoveChild(first, c)
		} else {
			t.Segment = t.Segment.WithStart(end)
		}
		c = next
	}
	if v[1] == ' ' {
		return "☐ ", true
	}
	return "☑ ", true
}

func headingLines(h *ast.Heading, src []byte, w int, st *mdStyles) []string {
	style := st.h3
	switch h.Level {
	case 1:
		style = st.h1
	case 2:
		style = st.h2
	}
	return wrapSpans(inlineSpans(h, src, span{heading: &style}), w, "", "")
}

// blockLines are the raw source lines of a code or HTML block.
func blockLines(n ast.Node, src []byte) []string {
	lines := n.Lines()
	out := make([]string, 0, lines.Len())
	for i := range lines.Len() {
		seg := lines.At(i)
		l := string(seg.Value(src))
		// goldmark keeps tab-stop padding as a count, not in the bytes.
		l = strings.Repeat(" ", seg.Padding) + l
		out = append(out, strings.TrimSuffix(strings.TrimSuffix(l, "\n"), "\r"))
	}
	for len(out) > 0 && strings.TrimSpace(out[len(out)-1]) == "" {
		out = out[:len(out)-1]
	}
	return out
}

// inlineSpans turns the inline children of n into styled spans; cur
// carries the styles of the enclosing elements.
func inlineSpans(n ast.Node, src []byte, cur span) []span {
	var out []span
	add := func(s span, text string) {
		if text != "" {
			s.text = text
			out = append(out, s)
		}
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch x := c.(type) {
		case *ast.Text:
			add(cur, textValue(x.Segment.Value(src)))
			switch {
			case x.HardLineBreak():
				add(cur, "\n")
			case x.SoftLineBreak():
				add(cur, " ")
			}
		case *ast.String:
			add(cur, string(x.Value))
		case *ast.CodeSpan:
			s := cur
			s.code = true
			var b strings.Builder
			for t := x.FirstChild(); t != nil; t = t.NextSibling() {
				switch v := t.(type) {
				case *ast.Text:
					b.Write(v.Segment.Value(src))
				case *ast.String:
					b.Write(v.Value)
				}
			}
			add(s, b.String())
		case *ast.Emphasis:
			s := cur
			if x.Level >= 2 {
				s.bold = true
			} else {
				s.italic = true
			}
			out = append(out, inlineSpans(x, src, s)...)
		case *strikethrough:
			s := cur
			s.strike = true
			out = append(out, inlineSpans(x, src, s)...)
		case *ast.Link, *ast.Image:
			s := cur
			s.link = true
			label := inlineSpans(x, src, s)
			out = append(out, label...)
			if url := destination(x); url != "" && url != spansText(label) {
				add(span{link: true, heading: cur.heading}, " ("+url+")")
			}
		case *ast.AutoLink:
			add(span{link: true, heading: cur.heading}, string(x.URL(src)))
		case *ast.RawHTML:
			segs := x.Segments
			for i := range segs.Len() {
				seg := segs.At(i)
				add(cur, string(seg.Value(src)))
			}
		default:
			out = append(out, inlineSpans(c, src, cur)...)
		}
	}
	return out
}

func destination(n ast.Node) string {
	switch x := n.(type) {
	case *ast.Link:
		return string(x.Destination)
	case *ast.Image:
		return string(x.Destination)
	}
	return ""
}

// mergeSpans joins neighbouring spans of one style: goldmark splits text
// at every possible delimiter ("a_b"), and a span boundary is a place
// wrapSpans may break a line.
func mergeSpans(sp []span) []span {
	out := sp[:0:0]
	for _, s := range sp {
		if n := len(out); n > 0 {
			last := out[n-1]
			last.text = s.text
			if last == s {
				out[n-1].text += s.text
				continue
			}
		}
		out = append(out, s)
	}
	return out
}

// textValue resolves backslash escapes and entity references in text.
func textValue(v []byte) string {
	return string(util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations(v))))
}

func spansText(sp []span) string {
	var b strings.Builder
	for _, s := range sp {
		b.WriteString(s.text)
	}
	return b.String()
}

// plainSpans is the text of every paragraph under n, for a width too
// narrow for structure.
func plainSpans(n ast.Node, src []byte) []span {
	var out []span
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering || c.Type() != ast.TypeBlock {
			return ast.WalkContinue, nil
		}
		if c.Kind() == ast.KindParagraph || c.Kind() == ast.KindTextBlock || c.Kind() == ast.KindHeading {
			if len(out) > 0 {
				out = append(out, span{text: " "})
			}
			out = append(out, inlineSpans(c, src, span{})...)
			return ast.WalkSkipChildren, nil
		}
		if c.Kind() == ast.KindFencedCodeBlock || c.Kind() == ast.KindCodeBlock {
			for _, l := range blockLines(c, src) {
				out = append(out, span{text: " " + l})
			}
		}
		return ast.WalkContinue, nil
	})
	return out
}

// inlineMarkdown parses one line of inline Markdown (a table cell).
func inlineMarkdown(s string) []span {
	src := []byte(s)
	doc := markdownParser().Parse(text.NewReader(src))
	var out []span
	for c := doc.FirstChild(); c != nil; c = c.NextSibling() {
		out = append(out, inlineSpans(c, src, span{})...)
	}
	return out
}

// paragraphTable finds a GFM table in a paragraph goldmark parsed (without
// the GFM extension, a table is paragraph text): a row with pipes, a
// delimiter row under it, then rows while they have pipes. Text before and
// after the table stays paragraph text.
type paragraphTable struct {
	before, after string
	rows          [][]string
	aligns        []byte
}

func findTable(p ast.Node, src []byte) (paragraphTable, bool) {
	lines := p.Lines()
	raw := make([]string, lines.Len())
	for i := range raw {
		seg := lines.At(i)
		raw[i] = strings.TrimRight(string(seg.Value(src)), "\r\n")
	}
	for i := 1; i < len(raw); i++ {
		if !strings.Contains(raw[i-1], "|") || !isTableDelimiter(raw[i]) {
			continue
		}
		t := paragraphTable{before: strings.Join(raw[:i-1], "\n"), rows: [][]string{splitRow(raw[i-1])}, aligns: tableAligns(raw[i])}
		j := i + 1
		for ; j < len(raw) && strings.Contains(raw[j], "|"); j++ {
			t.rows = append(t.rows, splitRow(raw[j]))
		}
		t.after = strings.Join(raw[j:], "\n")
		return t, true
	}
	return paragraphTable{}, false
}

func codeLines(code []string, lang string, w int, st *mdStyles) []string {
	var out []string
	if lang != "" {
		out = append(out, st.rule.Render(clip(lang, w)))
	}
	for _, l := range code {
		l = expandTabs(l)
		for _, part := range strings.Split(ansi.Hardwrap(ansi.Strip(l), max(w-2, 1), false), "\n") {
			out = append(out, "  "+st.codeBlock.Render(part))
		}
	}
	return out
}

// tableLines lays a table out in columns; when it is wider than w, the
// widest columns shrink and their cells wrap.
func tableLines(rows [][]string, aligns []byte, w int, st *mdStyles) []string {
	cols := 0
	for _, r := range rows {
		cols = max(cols, len(r))
	}
	cells := make([][][]span, len(rows))
	widths := make([]int, cols)
	for i, r := range rows {
		cells[i] = make([][]span, cols)
		for j := range cols {
			text := ""
			if j < len(r) {
				text = r[j]
			}
			cells[i][j] = inlineMarkdown(text)
			widths[j] = max(widths[j], spansWidth(cells[i][j]), 1)
		}
	}
	// Separators take 3 columns between cells.
	avail := w - 3*(cols-1)
	for sum(widths) > avail {
		k := 0
		for j := range widths {
			if widths[j] > widths[k] {
				k = j
			}
		}
		if widths[k] <= 1 {
			break
		}
		widths[k]--
	}
	sep := st.tableBorder.Render(" │ ")
	var out []string
	for i := range rows {
		wrapped := make([][]string, cols)
		height := 1
		for j := range cols {
			sp := cells[i][j]
			if i == 0 {
				for k := range sp {
					sp[k].heading = &st.tableHead
				}
			}
			wrapped[j] = wrapSpans(sp, widths[j], "", "")
			height = max(height, len(wrapped[j]))
		}
		for h := range height {
			var b strings.Builder
			for j := range cols {
				if j > 0 {
					b.WriteString(sep)
				}
				cell := ""
				if h < len(wrapped[j]) {
					cell = wrapped[j][h]
				}
				gap := max(widths[j]-lipgloss.Width(cell), 0)
				align := byte('l')
				if j < len(aligns) {
					align = aligns[j]
				}
				switch align {
				case 'r':
					b.WriteString(strings.Repeat(" ", gap) + cell)
				case 'c':
					b.WriteString(strings.Repeat(" ", gap/2) + cell + strings.Repeat(" ", gap-gap/2))
				default:
					b.WriteString(cell + strings.Repeat(" ", gap))
				}
			}
			// Only more columns than the width allows can still overflow.
			out = append(out, ansi.Truncate(strings.TrimRight(b.String(), " "), w, "…"))
		}
		if i == 0 {
			var b strings.Builder
			for j := range cols {
				if j > 0 {
					b.WriteString("─┼─")
				}
				b.WriteString(strings.Repeat("─", widths[j]))
			}
			out = append(out, st.tableBorder.Render(ansi.Truncate(b.String(), w, "")))
		}
	}
	return out
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// span is a run of inline text with one set of styles.
type span struct {
	text                       string
	bold, italic, strike, code bool
	link                       bool
	heading                    *lipgloss.Style
}

func (s span) style(st *mdStyles) lipgloss.Style {
	var style lipgloss.Style
	if s.heading != nil {
		style = *s.heading
	}
	switch {
	case s.code:
		style = style.Foreground(st.code.GetForeground())
	case s.link:
		style = style.Foreground(st.link.GetForeground()).Underline(true)
	}
	if s.bold {
		style = style.Bold(true)
	}
	if s.italic {
		style = style.Italic(true)
	}
	if s.strike {
		style = style.Strikethrough(true)
	}
	return style
}

func spansWidth(sp []span) int {
	n := 0
	for _, s := range sp {
		n += ansi.StringWidth(s.text)
	}
	return n
}

func wrapSpans(spans []span, w int, first, rest string) []string {
	spans = mergeSpans(spans)
	st := markdownStyles()
	w = max(w, 1)
	var lines []string
	var line strings.Builder
	width := 0
	prefix := first
	pendingSpace := false
	var spaceStyle lipgloss.Style
	newLine := func() {
		lines = append(lines, prefix+line.String())
		line.Reset()
		width = 0
		prefix = rest
		pendingSpace = false
	}
	for _, s := range spans {
		style := s.style(st)
		hard := strings.Split(s.text, "\n")
		for hi, seg := range hard {
			if hi > 0 {
				newLine()
			}
			for _, word := range splitKeepSpace(seg) {
				if strings.TrimSpace(word) == "" {
					if width > 0 {
						pendingSpace = true
						spaceStyle = style
					}
					continue
				}
				ww := ansi.StringWidth(word)
				space := 0
				if pendingSpace {
					space = 1
				}
				if width > 0 && width+space+ww > w {
					newLine()
					space = 0
				}
				if space == 1 {
					line.WriteString(spaceStyle.Render(" "))
					width++
					pendingSpace = false
				}
				for ww > w-width && w-width > 0 && ww > w {
					// A word longer than a whole line is cut.
					head := ansi.Truncate(word, w-width, "")
					if ansi.StringWidth(head) == 0 {
						break // a wide rune in a one-column gap
					}
					line.WriteString(style.Render(head))
					word = ansi.TruncateLeft(word, ansi.StringWidth(head), "")
					ww = ansi.StringWidth(word)
					newLine()
				}
				if word != "" {
					line.WriteString(style.Render(word))
					width += ww
				}
			}
		}
	}
	if line.Len() > 0 || len(lines) == 0 {
		lines = append(lines, prefix+line.String())
	}
	return lines
}

// splitKeepSpace splits s into words and single-space separators.
func splitKeepSpace(s string) []string {
	var out []string
	start := -1
	for i, r := range s {
		if unicode.IsSpace(r) {
			if start >= 0 {
				out = append(out, s[start:i])
				start = -1
			}
			out = append(out, " ")
			continue
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}

func expandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	col := 0
	for _, r := range s {
		if r == '\t' {
			n := 4 - col%4
			b.WriteString(strings.Repeat(" ", n))
			col += n
			continue
		}
		b.WriteRune(r)
		col++
	}
	return b.String()
}

func isTableDelimiter(line string) bool {
	t := strings.TrimSpace(line)
	if !strings.Contains(t, "-") || strings.Trim(t, "|:- \t") != "" {
		return false
	}
	for _, c := range splitRow(t) {
		c = strings.TrimSpace(c)
		if strings.Trim(c, ":") == "" || strings.Trim(strings.Trim(c, ":"), "-") != "" {
			return false
		}
	}
	return true
}

func tableAligns(line string) []byte {
	var out []byte
	for _, c := range splitRow(line) {
		c = strings.TrimSpace(c)
		switch {
		case strings.HasPrefix(c, ":") && strings.HasSuffix(c, ":"):
			out = append(out, 'c')
		case strings.HasSuffix(c, ":"):
			out = append(out, 'r')
		default:
			out = append(out, 'l')
		}
	}
	return out
}

// splitRow splits a table row on unescaped pipes outside code spans.
func splitRow(line string) []string {
	t := strings.TrimSpace(line)
	t = strings.TrimPrefix(t, "|")
	if strings.HasSuffix(t, "|") && !strings.HasSuffix(t, "\\|") {
		t = t[:len(t)-1]
	}
	var cells []string
	var b strings.Builder
	inCode := false
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case c == '\\' && i+1 < len(t) && t[i+1] == '|':
			b.WriteByte('|')
			i++
		case c == '`':
			inCode = !inCode
			b.WriteByte(c)
		case c == '|' && !inCode:
			cells = append(cells, strings.TrimSpace(b.String()))
			b.Reset()
		default:
			b.WriteByte(c)
		}
	}
	return append(cells, strings.TrimSpace(b.String()))
}
