package appserver

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/grovecli/grove/protocol"
)

// TestLineReader: lines come back trimmed and without blank ones; a line
// over the limit is skipped whole and reading goes on after it.
func TestLineReader(t *testing.T) {
	long := strings.Repeat("x", 200<<10) // spans several buffer fills
	in := "first\n\n  \r\n" + long + "\nsecond\r\nlast-without-newline\n" + long
	lr := newLineReader(strings.NewReader(in), 100<<10)
	var got []string
	var tooLong int
	for {
		line, err := lr.next()
		if errors.Is(err, errLineTooLong) {
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
}

// FuzzLineReader: any input yields lines that are non-empty, trimmed,
// newline-free and within the limit, and reading ends.
func FuzzLineReader(f *testing.F) {
	for _, s := range []string{"", "\n", "a\nb", "{\"id\":1}\r\n\r\n", strings.Repeat("y", 300) + "\nz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		lr := newLineReader(strings.NewReader(in), 256)
		for i := 0; i <= len(in)+1; i++ {
			line, err := lr.next()
			if errors.Is(err, errLineTooLong) {
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

// FuzzDecision: any client answer maps to a known decision or an error,
// and only the accept forms approve.
func FuzzDecision(f *testing.F) {
	for _, s := range []string{`"accept"`, `"acceptForSession"`, `"decline"`, `"cancel"`, `{"acceptWithExecpolicyAmendment":{}}`, `null`, `{}`, `"ACCEPT"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		d, err := decision([]byte(raw))
		if err != nil {
			return
		}
		switch d {
		case protocol.DecisionApproved, protocol.DecisionApprovedForSession:
			if !strings.Contains(strings.ToLower(raw), "accept") && !strings.Contains(raw, "approved") && !strings.Contains(raw, "apply") {
				t.Fatalf("%s approves", raw)
			}
		case protocol.DecisionDenied, protocol.DecisionAbort:
		default:
			t.Fatalf("%s → unknown decision %q", raw, d)
		}
	})
}
