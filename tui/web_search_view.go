package tui

import (
	"fmt"

	"github.com/grovecli/grove/protocol"
)

// webSearchLine is a hosted web search in the transcript (the query is
// the model's: made safe for the terminal).
func webSearchLine(ws protocol.WebSearchCall) string {
	what := ws.Query
	switch {
	case ws.Action == "open_page" || what == "" && ws.URL != "":
		what = "opened " + ws.URL
	case ws.Action == "find_in_page":
		what = fmt.Sprintf("looked for %q in %s", ws.Pattern, ws.URL)
	}
	return "🔎 web search: " + clip(cardText(what), 200)
}
