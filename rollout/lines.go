package rollout

import (
	"bytes"
	"errors"
	"io"
)

// reverseBlock is how much a reverse scan reads at a time.
const reverseBlock = 64 << 10

// scanLines calls fn for every line of r, first to last, with 1-based line
// numbers. The line excludes its terminator ("\n" or "\r\n"); a last line
// without a terminator (torn by a killed writer) is passed as well. Lines are
// read in blocks; a line longer than a block is measured first and then read
// into one buffer of exactly its size, reused for the next long line, so a
// 200 MB line costs 200 MB once. fn must not keep b.
func scanLines(r io.ReaderAt, fn func(n int, b []byte)) error {
	buf := make([]byte, reverseBlock)
	var long []byte
	var pos int64
	n := 0
	for {
		m, err := r.ReadAt(buf, pos)
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		chunk, atEOF := buf[:m], m < len(buf)
		start := 0
		for {
			i := bytes.IndexByte(chunk[start:], '\n')
			if i < 0 {
				break
			}
			n++
			fn(n, trimEOL(chunk[start:start+i]))
			start += i + 1
		}
		switch {
		case atEOF:
			if start < m { // a last line without terminator
				n++
				fn(n, trimEOL(chunk[start:]))
			}
			return nil
		case start > 0:
			pos += int64(start) // the rest starts a line: read it again
		default: // no newline in a whole block: a long line
			size, err := lineSize(r, pos, buf)
			if err != nil {
				return err
			}
			if cap(long) < int(size) {
				long = nil // let the old one go before the new one is made
				long = make([]byte, size)
			}
			long = long[:size]
			if k, err := r.ReadAt(long, pos); k < len(long) {
				if err == nil || errors.Is(err, io.EOF) {
					err = io.ErrUnexpectedEOF // the file shrank under us
				}
				return err
			}
			n++
			fn(n, trimEOL(long))
			pos += size
		}
	}
}

// lineSize measures the line at pos, its terminator included (to the end
// of r when it has none), reading with scratch.
func lineSize(r io.ReaderAt, pos int64, scratch []byte) (int64, error) {
	var size int64
	for {
		m, err := r.ReadAt(scratch, pos+size)
		if err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if i := bytes.IndexByte(scratch[:m], '\n'); i >= 0 {
			return size + int64(i) + 1, nil
		}
		size += int64(m)
		if m < len(scratch) {
			return size, nil
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
