package engine

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/grovecli/grove/protocol"
)

var (
	sessionRunning = regexp.MustCompile(`(?m)^Process running with session ID (\d+)$`)
	sessionUnknown = regexp.MustCompile(`Unknown process id (\d+)`)
)

// goneSessions lists the sessions a past run of grove left running: ids
// an exec_command or write_stdin answer named as running whose end no
// later answer reported. Their processes died with that grove.
func goneSessions(items []protocol.Item) []int {
	stdinOf := map[string]int{} // write_stdin call → its session_id
	running := map[int]bool{}
	for _, it := range items {
		switch it.Type {
		case protocol.ItemFunctionCall:
			if it.Name == "write_stdin" {
				var a struct {
					SessionID float64 `json:"session_id"`
				}
				if json.Unmarshal([]byte(it.Arguments), &a) == nil {
					stdinOf[it.CallID] = int(a.SessionID)
				}
			}
		case protocol.ItemFunctionCallOutput:
			if m := sessionRunning.FindStringSubmatch(it.Output); m != nil {
				id, _ := strconv.Atoi(m[1])
				running[id] = true
				continue
			}
			if m := sessionUnknown.FindStringSubmatch(it.Output); m != nil {
				id, _ := strconv.Atoi(m[1])
				delete(running, id)
			}
			if id, ok := stdinOf[it.CallID]; ok && strings.Contains(it.Output, "\nProcess exited with code ") {
				delete(running, id)
			}
		}
	}
	out := make([]int, 0, len(running))
	for id := range running {
		out = append(out, id)
	}
	sort.Ints(out)
	return out
}

// noteGoneSessions tells a resumed agent, and the user, that the sessions
// its previous run left running are gone.
func (e *Engine) noteGoneSessions(t *Thread, items []protocol.Item) {
	ids := goneSessions(items)
	if len(ids) == 0 {
		return
	}
	names := make([]string, len(ids))
	for i, id := range ids {
		names[i] = strconv.Itoa(id)
	}
	text := fmt.Sprintf("The sessions this conversation left running (session ID %s) are gone: their processes were killed when the agent was closed or grove exited. Start them again with exec_command if they are still needed.", strings.Join(names, ", "))
	t.appendHistory(protocol.GroveNotice(text))
	e.bus.Publish(protocol.NewEvent(t.id, "", protocol.WarningMsg{Text: text}))
}
