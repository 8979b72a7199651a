package tools

import (
	"fmt"
	"strings"
)

// Claude Code's tools reference, "Read tool behavior": "A read that passes
// an explicit offset or limit and still exceeds the token limit returns an
// error." The limit is 25,000 tokens unless
// CLAUDE_CODE_FILE_READ_MAX_OUTPUT_TOKENS says otherwise; the error is
// Claude Code's MaxFileReadTokenExceededError, as its sessions show it.
// grove has no tokenizer of the model's: it counts Claude Code's own
// rough estimate, a token per four characters.
const claudeReadMaxTokens = 25000

// readTokensOver is the refusal of a paged read whose lines (offset and
// limit as Read takes them) come to more tokens than the limit, "" when
// they fit.
func readTokensOver(text string, offset, limit int) string {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	first := max(offset, 1)
	if first > len(lines) {
		return ""
	}
	if limit <= 0 {
		limit = claudeReadLines
	}
	chars := 0
	for _, l := range lines[first-1 : min(len(lines), first+limit-1)] {
		chars += min(len([]rune(l)), claudeReadLineLen) + 1
	}
	maxTokens := claudeReadMaxTokens
	if n := positiveEnv("CLAUDE_CODE_FILE_READ_MAX_OUTPUT_TOKENS"); n > 0 {
		maxTokens = int(n)
	}
	tokens := (chars + 2) / 4 // Math.round(length / 4)
	if tokens <= maxTokens {
		return ""
	}
	return fmt.Sprintf("File content (%d tokens) exceeds maximum allowed tokens (%d). Use offset and limit parameters to read specific portions of the file, or search for specific content instead of reading the whole file.", tokens, maxTokens)
}
