package tui

import (
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// GFM strikethrough (~~text~~) as a goldmark inline parser: goldmark's
// extension package would bring it, at the init cost markdown.go explains.

var kindStrikethrough = ast.NewNodeKind("Strikethrough")

// strikethrough is struck-through inline content.
type strikethrough struct{ ast.BaseInline }

func (n *strikethrough) Kind() ast.NodeKind { return kindStrikethrough }

func (n *strikethrough) Dump(src []byte, level int) { ast.DumpHelper(n, src, level, nil, nil) }

// tildes pairs runs of exactly two tildes.
type tildes struct{}

func (tildes) IsDelimiter(b byte) bool { return b == '~' }

func (tildes) CanOpenCloser(opener, closer *parser.Delimiter) bool {
	return opener.Char == closer.Char && opener.OriginalLength == closer.OriginalLength
}

func (tildes) OnMatch(int) ast.Node { return &strikethrough{} }

type strikethroughParser struct{}

func (strikethroughParser) Trigger() []byte { return []byte{'~'} }

func (strikethroughParser) Parse(_ ast.Node, block text.Reader, pc parser.Context) ast.Node {
	before := block.PrecendingCharacter()
	line, seg := block.PeekLine()
	d := parser.ScanDelimiter(line, before, 2, tildes{})
	if d == nil || d.OriginalLength != 2 || before == '~' {
		return nil
	}
	d.Segment = seg.WithStop(seg.Start + d.OriginalLength)
	block.Advance(d.OriginalLength)
	pc.PushDelimiter(d)
	return d
}

func (strikethroughParser) CloseBlock(ast.Node, parser.Context) {}
