package rollout

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// reverseBlock is how much a reverse scan reads at a time.
const reverseBlock = 64 << 10

// scanLines calls fn for every line of r, first to last, with 1-based line
// numbers. The line excludes its terminator ("\n" or "\r\n"); a last line
// without a terminator (torn by a killed writer) is passed as well.
func scanLines(r io.Reader, fn func(n int, b []byte)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	n := 0
	for {
		b, err := br.ReadBytes('\n')
		if len(b) > 0 {
			n++
			fn(n, trimEOL(b))
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// reverseLines calls fn with each non-blank line of the first size bytes
// of r, last line first, reading block bytes at a time from the end, and
// stops when fn returns false. Lines are split and trimmed exactly as
// scanLines does. A line longer than a block is gathered across blocks and
// copied once. fn must not keep b after it returns.
func reverseLines(r io.ReaderAt, size int64, block int, fn func(b []byte) bool) error {
	buf := make([]byte, block)
	// pieces holds the part of the current line read so far, from blocks
	// further right: pieces[0] is its end, the last piece its start so far.
	var pieces [][]byte
	emit := func(head []byte) bool {
		line := head
		if len(pieces) > 0 {
			total := len(head)
			for _, p := range pieces {
				total += len(p)
			}
			line = make([]byte, 0, total)
			line = append(line, head...)
			for i := len(pieces) - 1; i >= 0; i-- {
				line = append(line, pieces[i]...)
			}
			pieces = pieces[:0]
		}
		line = trimEOL(line)
		if len(bytes.TrimSpace(line)) == 0 {
			return true
		}
		return fn(line)
	}
	pos := size
	for pos > 0 {
		n := int64(block)
		if pos < n {
			n = pos
		}
		pos -= n
		chunk := buf[:n]
		if m, err := r.ReadAt(chunk, pos); m < len(chunk) {
			if err == nil || errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF // the file shrank under us
			}
			return err
		}
		for {
			i := bytes.LastIndexByte(chunk, '\n')
			if i < 0 {
				break
			}
			if !emit(chunk[i+1:]) {
				return nil
			}
			chunk = chunk[:i]
		}
		if len(chunk) > 0 {
			// The start of this line is in an earlier block; buf is reused.
			pieces = append(pieces, bytes.Clone(chunk))
		}
	}
	emit(nil)
	return nil
}

// trimEOL drops the line terminator (and any stray CRs before it).
func trimEOL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}
