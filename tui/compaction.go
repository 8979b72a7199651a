package tui

import (
	"fmt"

	"github.com/grovecli/grove/protocol"
)

// compactionMarker is the transcript line where a thread's history was
// replaced by a summary: why, and its size before and after.
func compactionMarker(c protocol.Compaction) string {
	why := map[string]string{
		protocol.CompactAuto:            "context limit reached",
		protocol.CompactManual:          "/compact",
		protocol.CompactContextExceeded: "the model refused the context as too long",
	}[c.Trigger]
	if why == "" {
		why = c.Trigger
	}
	return fmt.Sprintf("⇣ context compacted (%s): ~%s → ~%s tokens; the model continues from a summary", why, shortTokens(c.TokensBefore), shortTokens(c.TokensAfter))
}

// shortTokens writes a token count as 950, 12.3k or 1.2M.
func shortTokens(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%dk", n/1000)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return fmt.Sprint(n)
}
