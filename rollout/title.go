package rollout

import "github.com/grovecli/grove/protocol"

// FirstPrompt is the text a session is titled by: its first message from
// the user (a sub-agent's: the task its parent sent). grove's own notices
// (hook context, completion notices, compaction summaries) are no prompt,
// so they never become a session's title. "" when there is none yet.
func FirstPrompt(items []protocol.Item) string {
	for _, it := range items {
		if isPrompt(it) {
			return it.Content
		}
	}
	return ""
}

// isPrompt reports whether it is a message a person (or a parent agent)
// wrote to the thread.
func isPrompt(it protocol.Item) bool {
	return it.Type == protocol.ItemMessage && (it.Role == protocol.RoleUser || it.Role == protocol.RoleAgent) &&
		!it.IsGroveNotice() && it.Content != ""
}
