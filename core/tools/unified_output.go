package tools

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// DefaultMaxOutputTokens is how much output exec_command and write_stdin
// return when the model does not say (Codex's DEFAULT_MAX_OUTPUT_TOKENS).
const DefaultMaxOutputTokens = 10_000

// bytesPerToken is Codex's token estimate: a token is about four bytes
// (codex-rs/utils/string, APPROX_BYTES_PER_TOKEN).
const bytesPerToken = 4

// approxTokens is Codex's approx_token_count: bytes / 4, rounded up.
func approxTokens(n int) int { return (n + bytesPerToken - 1) / bytesPerToken }

// unifiedResult is one exec_command or write_stdin answer.
type unifiedResult struct {
	wall time.Duration
	// exitCode is set when the process ended during the call; session
	// otherwise (the id to pass to write_stdin).
	exitCode *int
	session  int
	raw      []byte
	// omitted counts the bytes dropped between raw's head and tail while
	// nobody read (more than the session buffer arrived).
	omitted int
	// maxTokens bounds the output (0 or less: DefaultMaxOutputTokens).
	maxTokens int
}

// text renders r exactly as Codex's ExecCommandToolOutput does, line for
// line: Chunk ID, Wall time (4 decimals), the exit or the session,
// Original token count, Output, then the output, over budget cut in the
// middle by tokens.
func (r unifiedResult) text() string {
	out := strings.ToValidUTF8(string(r.raw), "\uFFFD")
	max := r.maxTokens
	if max <= 0 {
		max = DefaultMaxOutputTokens
	}
	sections := []string{
		"Chunk ID: " + chunkID(),
		fmt.Sprintf("Wall time: %.4f seconds", r.wall.Seconds()),
	}
	if r.exitCode != nil {
		sections = append(sections, fmt.Sprintf("Process exited with code %d", *r.exitCode))
	} else {
		sections = append(sections, fmt.Sprintf("Process running with session ID %d", r.session))
	}
	sections = append(sections,
		fmt.Sprintf("Original token count: %d", approxTokens(len(out)+r.omitted)),
		"Output:",
		truncateTokens(out, max, r.omitted))
	return strings.Join(sections, "\n")
}

// chunkID is six random hex digits, as Codex's generate_chunk_id.
func chunkID() string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// truncateTokens is Codex's formatted_truncate_text with a token policy:
// text within maxTokens*4 bytes is returned as is; longer text keeps its
// first and last halves of that budget (cut between runes) around a
// "…N tokens truncated…" marker, under a warning naming the original
// token count and line count. omitted bytes already left its middle
// (the session buffer's overflow): they count as truncated.
func truncateTokens(s string, maxTokens, omitted int) string {
	budget := max(maxTokens, 0) * bytesPerToken
	if len(s)+omitted <= budget {
		return s
	}
	if len(s) <= budget {
		// Only the buffer's overflow is missing: say so where it was cut.
		half := len(s) / 2
		for half > 0 && !utf8.RuneStart(s[half]) {
			half--
		}
		return fmt.Sprintf("Warning: truncated output (original token count: %d)\n\n%s…%d tokens truncated…%s",
			approxTokens(len(s)+omitted), s[:half], approxTokens(omitted), s[half:])
	}
	lines := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		lines++
	}
	return fmt.Sprintf("Warning: truncated output (original token count: %d)\nTotal output lines: %d\n\n%s",
		approxTokens(len(s)+omitted), lines, truncateMiddle(s, budget, omitted))
}

// truncateMiddle keeps a prefix of at most budget/2 bytes and a suffix of
// at most the rest, on rune boundaries, with the removed bytes counted in
// tokens between them.
func truncateMiddle(s string, budget, omitted int) string {
	marker := fmt.Sprintf("…%d tokens truncated…", approxTokens(len(s)+omitted-budget))
	if budget == 0 {
		return marker
	}
	left := budget / 2
	prefixEnd := 0
	for i, r := range s {
		end := i + utf8.RuneLen(r)
		if end > left {
			break
		}
		prefixEnd = end
	}
	suffixStart := len(s)
	tailTarget := len(s) - (budget - left)
	for i := range s {
		if i >= tailTarget {
			suffixStart = i
			break
		}
	}
	suffixStart = max(suffixStart, prefixEnd)
	return s[:prefixEnd] + marker + s[suffixStart:]
}
