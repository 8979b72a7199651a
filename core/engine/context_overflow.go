package engine

import (
	"regexp"
	"strconv"

	"github.com/grovecli/grove/protocol"
)

// A summary request the model refuses as too long used to lose one item
// per retry: a long session made over a hundred requests of many MB each
// before one fit. The refusal usually says by how much it is over
// (OpenAI: "maximum context length is N tokens. However, your messages
// resulted in M tokens"; Anthropic: "prompt is too long: M tokens > N
// maximum"); the trim takes that much, with a margin for grove's
// estimate, in one step, and an eighth of the history when it says
// nothing.

var (
	overflowOpenAI    = regexp.MustCompile(`maximum context length is (\d+) tokens.*?resulted in (\d+) tokens`)
	overflowAnthropic = regexp.MustCompile(`prompt is too long: (\d+) tokens > (\d+)`)
)

// contextOverflow returns the model's limit and the request's size that a
// context-length refusal names.
func contextOverflow(msg string) (limit, size int64, ok bool) {
	if m := overflowOpenAI.FindStringSubmatch(msg); m != nil {
		limit, _ = strconv.ParseInt(m[1], 10, 64)
		size, _ = strconv.ParseInt(m[2], 10, 64)
		return limit, size, limit > 0 && size > limit
	}
	if m := overflowAnthropic.FindStringSubmatch(msg); m != nil {
		size, _ = strconv.ParseInt(m[1], 10, 64)
		limit, _ = strconv.ParseInt(m[2], 10, 64)
		return limit, size, limit > 0 && size > limit
	}
	return 0, 0, false
}

// overflowTrim returns how many leading items of items to drop after the
// refusal msg: enough for the excess it names plus a tenth of the limit,
// measured in the provider's tokens scaled to grove's estimate, never
// splitting a call from its output (dropOldest), and at least one.
func overflowTrim(items []protocol.Item, msg string) int {
	var total int64
	for _, it := range items {
		total += itemTokens(it)
	}
	need := total / 8
	if limit, size, ok := contextOverflow(msg); ok {
		// The provider counts the whole request (instructions, tools);
		// grove's estimate covers the items: scale the excess to it.
		excess := size - limit + limit/10
		need = excess * total / size
	}
	n, dropped := 0, int64(0)
	for n < len(items)-1 && (n == 0 || dropped < need) {
		k := dropOldest(items[n:])
		for _, it := range items[n : n+k] {
			dropped += itemTokens(it)
		}
		n += k
	}
	return max(n, 1)
}
