package tui

import (
	"strings"
	"sync"
	"unicode"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// markdown renders finished assistant messages as terminal lines: CommonMark
// blocks (headings, paragraphs, lists, quotes, fenced and indented code,
// rules) plus the GFM parts models use (tables, task lists, strikethrough).
//
// It is grove's own renderer rather than glamour on purpose: glamour links
// chroma and goldmark's extensions, whose package initialisers parse every
// highlighting style and lexer and compile large regexps — ~16 ms in every
// grove process, the sandbox helper re-exec included. This file costs
// nothing until the first message is rendered. Code blocks are shown
// verbatim in one style, without syntax highlighting.
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
	out := renderBlocks(lines, w, markdownStyles())
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
func renderBlocks(lines []string, w int, st *mdStyles) []string {
	if w < 6 {
		// Too deeply nested for structure: plain wrapped text.
		return wrapSpans(parseInline(joinParagraph(lines)), max(w, 2), "", "")
	}
	var out []string
	blank := func() {
		if len(out) > 0 && out[len(out)-1] != "" {
			out = append(out, "")
		}
	}
	var para []string
	flush := func() {
		if len(para) == 0 {
			return
		}
		out = append(out, wrapSpans(parseInline(joinParagraph(para)), w, "", "")...)
		para = nil
	}
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		trimmed := strings.TrimSpace(line)
		indent := leadingSpaces(line)
		switch {
		case trimmed == "":
			flush()
			blank()
		case indent < 4 && isFence(trimmed):
			flush()
			blank()
			fence := trimmed[:fenceLen(trimmed)]
			lang := strings.TrimSpace(trimmed[len(fence):])
			var code []string
			for i++; i < len(lines); i++ {
				if t := strings.TrimSpace(lines[i]); strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
					break
				}
				code = append(code, lines[i])
			}
			if i == len(lines) {
				// Unclosed fence: the code runs to the end, minus trailing blanks.
				for len(code) > 0 && strings.TrimSpace(code[len(code)-1]) == "" {
					code = code[:len(code)-1]
				}
			}
			out = append(out, codeLines(code, lang, w, st)...)
			blank()
		case indent >= 4 && len(para) == 0:
			// Indented code block.
			var code []string
			for ; i < len(lines) && (leadingSpaces(lines[i]) >= 4 || strings.TrimSpace(lines[i]) == ""); i++ {
				code = append(code, strings.TrimPrefix(expandTabs(lines[i]), "    "))
			}
			i--
			for len(code) > 0 && strings.TrimSpace(code[len(code)-1]) == "" {
				code = code[:len(code)-1]
			}
			blank()
			out = append(out, codeLines(code, "", w, st)...)
			blank()
		case len(para) > 0 && indent < 4 && isSetextUnderline(trimmed):
			level := 2
			if trimmed[0] == '=' {
				level = 1
			}
			text := joinParagraph(para)
			para = nil
			blank()
			out = append(out, headingLines(text, level, w, st)...)
		case indent < 4 && isRule(trimmed):
			flush()
			blank()
			out = append(out, st.rule.Render(strings.Repeat("─", min(w, 40))))
			blank()
		case indent < 4 && headingLevel(trimmed) > 0:
			flush()
			blank()
			level := headingLevel(trimmed)
			text := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(trimmed[level:]), "#"))
			out = append(out, headingLines(text, level, w, st)...)
		case indent < 4 && strings.HasPrefix(trimmed, ">"):
			flush()
			var inner []string
			for ; i < len(lines); i++ {
				t := strings.TrimSpace(lines[i])
				if !strings.HasPrefix(t, ">") {
					break
				}
				t = strings.TrimPrefix(t, ">")
				inner = append(inner, strings.TrimPrefix(t, " "))
			}
			i--
			blank()
			for _, l := range renderBlocks(inner, w-2, st) {
				out = append(out, st.quote.Render("│ ")+l)
			}
			blank()
		case indent < 4 && i+1 < len(lines) && strings.Contains(line, "|") && isTableDelimiter(lines[i+1]):
			flush()
			rows := [][]string{splitRow(line)}
			aligns := tableAligns(lines[i+1])
			for i += 2; i < len(lines) && strings.TrimSpace(lines[i]) != "" && strings.Contains(lines[i], "|"); i++ {
				rows = append(rows, splitRow(lines[i]))
			}
			i--
			blank()
			out = append(out, tableLines(rows, aligns, w, st)...)
			blank()
		case isListItem(line):
			flush()
			n := 0
			out, n = listLines(out, lines[i:], w, st)
			i += n - 1
		default:
			para = append(para, line)
		}
	}
	flush()
	return out
}

// listLines renders the list starting at lines[0] and returns how many
// lines it took.
func listLines(out []string, lines []string, w int, st *mdStyles) ([]string, int) {
	base := leadingSpaces(lines[0])
	i := 0
	for i < len(lines) {
		marker, rest, ok := listMarker(lines[i])
		if !ok || leadingSpaces(lines[i]) != base {
			break
		}
		contentIndent := leadingSpaces(lines[i]) + len(marker) + 1
		item := []string{rest}
		i++
		// The item continues with indented lines, lazy continuation lines
		// and blank lines followed by indented content.
		for i < len(lines) {
			l := lines[i]
			if strings.TrimSpace(l) == "" {
				if i+1 < len(lines) && leadingSpaces(lines[i+1]) >= contentIndent && strings.TrimSpace(lines[i+1]) != "" {
					item = append(item, "")
					i++
					continue
				}
				break
			}
			if leadingSpaces(l) >= contentIndent {
				item = append(item, l[min(contentIndent, leadingSpaces(l)):])
				i++
				continue
			}
			if _, _, isItem := listMarker(l); isItem || leadingSpaces(l) < base || isFence(strings.TrimSpace(l)) || headingLevel(strings.TrimSpace(l)) > 0 {
				break
			}
			item = append(item, strings.TrimSpace(l))
			i++
		}
		bullet := "• "
		if marker != "-" && marker != "*" && marker != "+" {
			bullet = marker + " "
		}
		if t := strings.TrimSpace(item[0]); len(t) >= 3 && t[0] == '[' && t[2] == ']' && (t[1] == ' ' || t[1] == 'x' || t[1] == 'X') {
			box := "☐ "
			if t[1] != ' ' {
				box = "☑ "
			}
			bullet = box
			item[0] = strings.TrimSpace(t[3:])
		}
		bw := lipgloss.Width(bullet)
		pad := strings.Repeat(" ", bw)
		body := renderBlocks(item, w-bw, st)
		for len(body) > 0 && body[len(body)-1] == "" {
			body = body[:len(body)-1]
		}
		if len(body) == 0 {
			body = []string{""}
		}
		for j, l := range body {
			if j == 0 {
				out = append(out, st.bullet.Render(bullet)+l)
			} else if l == "" {
				out = append(out, "")
			} else {
				out = append(out, pad+l)
			}
		}
	}
	return out, max(i, 1)
}

func headingLines(text string, level, w int, st *mdStyles) []string {
	style := st.h3
	switch level {
	case 1:
		style = st.h1
	case 2:
		style = st.h2
	}
	spans := parseInline(text)
	for k := range spans {
		spans[k].heading = &style
	}
	return wrapSpans(spans, w, "", "")
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
			cells[i][j] = parseInline(text)
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

// parseInline splits text into styled spans: `code`, **bold**, *italic*,
// _italic_, ~~strike~~, [text](url), <autolinks> and backslash escapes.
func parseInline(text string) []span {
	var out []span
	var cur span
	var b strings.Builder
	emit := func() {
		if b.Len() > 0 {
			s := cur
			s.text = b.String()
			out = append(out, s)
			b.Reset()
		}
	}
	rs := []rune(text)
	ix := newInlineIndex(rs)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '\\' && i+1 < len(rs) && unicode.IsPunct(rs[i+1]) || r == '\\' && i+1 < len(rs) && unicode.IsSymbol(rs[i+1]):
			b.WriteRune(rs[i+1])
			i++
		case r == '`':
			n := runLen(rs, i, '`')
			end := ix.findRun(i+n, '`', n)
			if end < 0 {
				b.WriteString(string(rs[i : i+n]))
				i += n - 1
				continue
			}
			emit()
			code := string(rs[i+n : end])
			if len(code) > 1 && strings.HasPrefix(code, " ") && strings.HasSuffix(code, " ") && strings.TrimSpace(code) != "" {
				code = code[1 : len(code)-1]
			}
			s := cur
			s.code, s.text = true, code
			out = append(out, s)
			i = end + n - 1
		case (r == '*' || r == '_') && i+1 < len(rs) && rs[i+1] == r:
			if !cur.bold && !canOpen(rs, i, 2) || cur.bold && !canClose(rs, i) || !cur.bold && ix.findRun(i+2, r, 2) < 0 {
				b.WriteString(string(rs[i : i+2]))
				i++
				continue
			}
			emit()
			cur.bold = !cur.bold
			i++
		case r == '*' || r == '_' && !intraword(rs, i):
			if !cur.italic && (!canOpen(rs, i, 1) || ix.findRun(i+1, r, 1) < 0) || cur.italic && !canClose(rs, i) {
				b.WriteRune(r)
				continue
			}
			emit()
			cur.italic = !cur.italic
		case r == '~' && i+1 < len(rs) && rs[i+1] == '~':
			if !cur.strike && ix.findRun(i+2, '~', 2) < 0 {
				b.WriteString("~~")
				i++
				continue
			}
			emit()
			cur.strike = !cur.strike
			i++
		case r == '[':
			label, url, n, ok := ix.parseLink(i)
			if !ok {
				b.WriteRune(r)
				continue
			}
			emit()
			inner := parseInline(label)
			for k := range inner {
				inner[k].bold = inner[k].bold || cur.bold
				inner[k].italic = inner[k].italic || cur.italic
				inner[k].strike = inner[k].strike || cur.strike
				inner[k].heading = cur.heading
				inner[k].link = true
			}
			out = append(out, inner...)
			if url != "" && url != label {
				out = append(out, span{text: " (" + url + ")", link: true, heading: cur.heading})
			}
			i += n - 1
		case r == '<':
			end := ix.next(i+1, '>')
			if end > 0 {
				inner := string(rs[i+1 : end])
				if strings.Contains(inner, "://") && !strings.ContainsAny(inner, " \t") || strings.Contains(inner, "@") && !strings.ContainsAny(inner, " \t") {
					emit()
					out = append(out, span{text: inner, link: true, heading: cur.heading})
					i = end
					continue
				}
			}
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	emit()
	return out
}

func runLen(rs []rune, i int, r rune) int {
	n := 0
	for i+n < len(rs) && rs[i+n] == r {
		n++
	}
	return n
}

// inlineIndex answers parseInline's look-ahead questions in amortised
// constant time, so a hostile message (thousands of unclosed backticks,
// brackets or asterisks) renders in linear time instead of quadratic.
type inlineIndex struct {
	rs []rune
	// closeBracket[i] is the ']' matching the '[' at i, or -1.
	closeBracket []int
	// nextParen / nextAngle[i]: the first ')' / '>' at or after i, or -1.
	nextParen, nextAngle []int
	// noRun[{r, n}] is the smallest start from which a search for a run
	// failed: every later start fails too.
	noRun map[[2]int]int
}

func newInlineIndex(rs []rune) *inlineIndex {
	ix := &inlineIndex{rs: rs, closeBracket: make([]int, len(rs)), nextParen: make([]int, len(rs)+1), nextAngle: make([]int, len(rs)+1), noRun: map[[2]int]int{}}
	var open []int
	for i := 0; i < len(rs); i++ {
		ix.closeBracket[i] = -1
		switch rs[i] {
		case '\\':
			if i+1 < len(rs) {
				i++
				ix.closeBracket[i] = -1
			}
		case '[':
			open = append(open, i)
		case ']':
			if n := len(open); n > 0 {
				ix.closeBracket[open[n-1]] = i
				open = open[:n-1]
			}
		}
	}
	ix.nextParen[len(rs)], ix.nextAngle[len(rs)] = -1, -1
	for i := len(rs) - 1; i >= 0; i-- {
		ix.nextParen[i], ix.nextAngle[i] = ix.nextParen[i+1], ix.nextAngle[i+1]
		switch rs[i] {
		case ')':
			ix.nextParen[i] = i
		case '>':
			ix.nextAngle[i] = i
		}
	}
	return ix
}

// next returns the first r (')' or '>') at or after from, or -1.
func (ix *inlineIndex) next(from int, r rune) int {
	if from >= len(ix.rs) {
		return -1
	}
	if r == ')' {
		return ix.nextParen[from]
	}
	return ix.nextAngle[from]
}

// findRun finds the next run of exactly n r's from i (for emphasis, n or
// more), or -1.
func (ix *inlineIndex) findRun(i int, r rune, n int) int {
	key := [2]int{int(r), n}
	if failed, ok := ix.noRun[key]; ok && i >= failed {
		return -1
	}
	rs := ix.rs
	start := i
	for i < len(rs) {
		if rs[i] == r {
			m := runLen(rs, i, r)
			if m == n || r != '`' && m >= n {
				return i
			}
			i += m
			continue
		}
		i++
	}
	if failed, ok := ix.noRun[key]; !ok || start < failed {
		ix.noRun[key] = start
	}
	return -1
}

// canOpen: an emphasis run opens when followed by a non-space.
func canOpen(rs []rune, i, n int) bool {
	return i+n < len(rs) && !unicode.IsSpace(rs[i+n])
}

// canClose: an emphasis run closes when preceded by a non-space.
func canClose(rs []rune, i int) bool {
	return i > 0 && !unicode.IsSpace(rs[i-1])
}

// intraword: snake_case underscores are not emphasis.
func intraword(rs []rune, i int) bool {
	isWord := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
	return i > 0 && i+1 < len(rs) && isWord(rs[i-1]) && isWord(rs[i+1])
}

// parseLink parses [label](url) at rs[i]; n is its length in runes.
func (ix *inlineIndex) parseLink(i int) (label, url string, n int, ok bool) {
	rs := ix.rs
	j := ix.closeBracket[i]
	if j < 0 || j+1 >= len(rs) || rs[j+1] != '(' {
		return "", "", 0, false
	}
	end := ix.next(j+2, ')')
	if end < 0 {
		return "", "", 0, false
	}
	target := strings.TrimSpace(string(rs[j+2 : end]))
	if k := strings.IndexAny(target, " \t"); k >= 0 {
		target = target[:k] // drop a "title"
	}
	return string(rs[i+1 : j]), strings.Trim(target, "<>"), end - i + 1, true
}

// wrapSpans word-wraps styled spans to w columns; each piece of text is
// styled on its own line, so styles never bleed across lines.
func wrapSpans(spans []span, w int, first, rest string) []string {
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

// joinParagraph joins a paragraph's lines; a line ending in two spaces or
// a backslash is a hard break.
func joinParagraph(lines []string) string {
	var b strings.Builder
	for i, l := range lines {
		t := strings.TrimLeft(l, " \t")
		hard := strings.HasSuffix(t, "  ") || strings.HasSuffix(t, "\\")
		t = strings.TrimRight(t, " \t")
		if hard {
			t = strings.TrimSuffix(t, "\\")
		}
		b.WriteString(t)
		if i < len(lines)-1 {
			if hard {
				b.WriteByte('\n')
			} else {
				b.WriteByte(' ')
			}
		}
	}
	return b.String()
}

func leadingSpaces(s string) int {
	n := 0
	for _, r := range s {
		switch r {
		case ' ':
			n++
		case '\t':
			n += 4 - n%4
		default:
			return n
		}
	}
	return n
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

func fenceLen(t string) int {
	if t == "" || t[0] != '`' && t[0] != '~' {
		return 0
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	return n
}

func isFence(t string) bool {
	n := fenceLen(t)
	return n >= 3 && !(t[0] == '`' && strings.Contains(t[n:], "`"))
}

func isSetextUnderline(t string) bool {
	return len(t) > 0 && (strings.Trim(t, "=") == "" || strings.Trim(t, "-") == "" && len(t) >= 2)
}

func isRule(t string) bool {
	for _, c := range "-*_" {
		s := strings.ReplaceAll(t, " ", "")
		if len(s) >= 3 && strings.Trim(s, string(c)) == "" {
			return true
		}
	}
	return false
}

func headingLevel(t string) int {
	n := 0
	for n < len(t) && t[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || n < len(t) && t[n] != ' ' && t[n] != '\t' {
		return 0
	}
	return n
}

// listMarker parses "- x", "* x", "+ x", "1. x", "1) x".
func listMarker(line string) (marker, rest string, ok bool) {
	t := strings.TrimLeft(line, " \t")
	if len(t) >= 2 && strings.ContainsRune("-*+", rune(t[0])) && (t[1] == ' ' || t[1] == '\t') {
		if isRule(strings.TrimSpace(t)) {
			return "", "", false
		}
		return t[:1], strings.TrimSpace(t[2:]), true
	}
	if len(t) == 1 && strings.ContainsRune("-*+", rune(t[0])) {
		return t, "", true
	}
	n := 0
	for n < len(t) && n < 9 && t[n] >= '0' && t[n] <= '9' {
		n++
	}
	if n > 0 && n+1 < len(t) && (t[n] == '.' || t[n] == ')') && (t[n+1] == ' ' || t[n+1] == '\t') {
		return t[:n+1], strings.TrimSpace(t[n+2:]), true
	}
	return "", "", false
}

func isListItem(line string) bool {
	_, _, ok := listMarker(line)
	return ok && leadingSpaces(line) < 4
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
