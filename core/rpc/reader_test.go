package rpc

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// TestReaderLines: lines come back trimmed and without blank ones; a line
// over the limit is skipped whole and reading goes on after it.
func TestReaderLines(t *testing.T) {
	long := strings.Repeat("x", 200<<10) // spans several buffer fills
	in := "first\n\n  \r\n" + long + "\nsecond\r\nlast-without-newline\n" + long
	lr := NewReader(strings.NewReader(in), 100<<10)
	var got []string
	var tooLong int
	for {
		line, err := lr.Line()
		var tl *TooLongError
		if errors.As(err, &tl) {
			tooLong++
			continue
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(line))
	}
	if strings.Join(got, "|") != "first|second|last-without-newline" || tooLong != 2 {
		t.Fatalf("lines %q, too long %d", got, tooLong)
	}
	if msg := (&TooLongError{Max: 16 << 20}).Error(); msg != "message longer than 16 MiB" {
		t.Fatalf("too long: %q", msg)
	}
}

// TestReaderMessages: a line that is not a JSON object is a ParseError and
// the next line still reads.
func TestReaderMessages(t *testing.T) {
	r := NewReader(strings.NewReader("{\"id\":1,\"method\":\"a\"}\nnot json\n[1]\n{\"method\":\"b\"}\n"), 1<<10)
	var got []string
	for {
		m, err := r.Next()
		var pe *ParseError
		switch {
		case errors.As(err, &pe):
			got = append(got, "bad")
			continue
		case err == io.EOF:
		case err != nil:
			t.Fatal(err)
		default:
			got = append(got, m.Method)
			continue
		}
		break
	}
	if strings.Join(got, ",") != "a,bad,bad,b" {
		t.Fatalf("got %v", got)
	}
}

// FuzzReader: any input yields lines that are non-empty, trimmed,
// newline-free and within the limit, and reading ends.
func FuzzReader(f *testing.F) {
	for _, s := range []string{"", "\n", "a\nb", "{\"id\":1}\r\n\r\n", strings.Repeat("y", 300) + "\nz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		lr := NewReader(strings.NewReader(in), 256)
		for i := 0; i <= len(in)+1; i++ {
			line, err := lr.Line()
			var tl *TooLongError
			if errors.As(err, &tl) {
				continue
			}
			if err != nil {
				return
			}
			if len(line) == 0 || len(line) > 256 || strings.ContainsRune(string(line), '\n') || strings.TrimSpace(string(line)) != string(line) {
				t.Fatalf("bad line %q", line)
			}
		}
		t.Fatal("reader did not end")
	})
}
