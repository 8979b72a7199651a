package surfacetest_test

import (
	"encoding/json"
	"regexp"
	"testing"
	"time"

	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/core/surface/inbox"
	"github.com/grovecli/grove/core/surface/surfacetest"
	"github.com/grovecli/grove/protocol"
)

func inboxCfg(turns surfacetest.Turns) surfacetest.Config {
	return surfacetest.Config{Surfaces: []engine.SurfaceFactory{inbox.New}, Surface: inbox.Name, Turns: turns}
}

// completedNote matches the inbox event of a sub-agent's completion.
func completedNote(ev protocol.Event) bool {
	return ev.Type == protocol.EventInbox && ev.Inbox != nil && ev.Inbox.Notification != nil &&
		ev.Inbox.Notification.Kind == protocol.NotifyCompleted
}

// stable blanks the values that differ from run to run (ids, times) so a
// tool result compares byte for byte.
func stable(s string) string {
	s = regexp.MustCompile(`"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"`).ReplaceAllString(s, `"<id>"`)
	return regexp.MustCompile(`"\d{4}-\d\d-\d\dT[0-9:.]+Z"`).ReplaceAllString(s, `"<time>"`)
}

// Seed 001 (inbox surface): one session walks the whole lifecycle; w1
// reports, asks and completes while w2 stays at work, then the parent
// reads, lists and ends.
func TestSeed001(t *testing.T) {
	turns := surfacetest.Turns{
		"root": {
			call("a", "create_subagent", `{"task":"AS:w1 one"}`),
			call("b", "create_subagent", `{"task":"AS:w2 two"}`),
			surfacetest.After(completedNote, call("l0", "list_subagents", `{}`)),
			call("c", "check_inbox", `{}`),
			call("l1", "list_subagents", `{}`),
			call("c2", "check_inbox", `{"mark_as_read":false}`),
			callWith("e", "end_subagent", idArgs("b", "subagent_id", `{"subagent_id":$ID}`)),
			call("l2", "list_subagents", `{}`),
			say("ok"),
		},
		"w1": {call("n1", "notify_parent", `{"type":"message","content":"progress"}`), call("n2", "notify_parent", `{"type":"question","content":"which?"}`), say("w1 done")},
		"w2": {surfacetest.Hold()},
	}
	const (
		w1Completed = `{"created_at":"<time>","id":"<id>","last_activity":"<time>","state":"completed","task":"AS:w1 one","unread_count":%d}`
		w2Active    = `{"created_at":"<time>","id":"<id>","last_activity":"<time>","state":"active","task":"AS:w2 two","unread_count":0}`
		w2Ended     = `{"created_at":"<time>","id":"<id>","last_activity":"<time>","state":{"error":{"message":"ended by its parent before it finished"}},"task":"AS:w2 two","unread_count":0}`
		inboxRead   = `{"notifications":[` +
			`{"notification":{"summary":"w1 done","type":"completed"},"read":%[1]s,"subagent_id":"<id>","timestamp":"<time>"},` +
			`{"notification":{"content":"which?","type":"question"},"read":%[1]s,"subagent_id":"<id>","timestamp":"<time>"},` +
			`{"notification":{"content":"progress","type":"message"},"read":%[1]s,"subagent_id":"<id>","timestamp":"<time>"}]}`
	)
	runCases(t, []seedCase{{clause: "001-03/04/11-14/20-23 lifecycle", cfg: inboxCfg(turns), check: func(t *testing.T, env *surfacetest.Env) {
		out := func(id string) string { return stable(env.Output("root", id)) }
		exact(t, "create_subagent", out("a"), `{"subagent_id":"<id>"}`)
		// 001-03/04/11/14/22: two at once, each with its state; w1's
		// completion arrived while w2 works, three unread.
		exact(t, "list before reading", out("l0"), `{"subagents":[`+sprintf(w1Completed, 3)+`,`+w2Active+`]}`)
		// 001-12/13/21: the seed's notification variants and fields, most
		// recent first.
		exact(t, "check_inbox", out("c"), sprintf(inboxRead, "false"))
		// 001-20/22: retrieved means read.
		exact(t, "list after reading", out("l1"), `{"subagents":[`+sprintf(w1Completed, 0)+`,`+w2Active+`]}`)
		exact(t, "check_inbox again", out("c2"), sprintf(inboxRead, "true"))
		// 001-23: the parent ends a working sub-agent; its state follows.
		exact(t, "end_subagent", out("e"), `{"final_state":{"error":{"message":"ended by its parent before it finished"}},"subagent_id":"<id>"}`)
		exact(t, "list after end", out("l2"), `{"subagents":[`+sprintf(w1Completed, 0)+`,`+w2Ended+`]}`)
		ts := timestamps(t, env.Output("root", "c"))
		for i := 1; i < len(ts); i++ {
			if ts[i].After(ts[i-1]) {
				t.Errorf("notifications not most recent first: %v", ts)
			}
		}
	}}})
}

func timestamps(t *testing.T, out string) []time.Time {
	t.Helper()
	var v struct {
		Notifications []struct {
			Timestamp time.Time `json:"timestamp"`
		} `json:"notifications"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	var ts []time.Time
	for _, n := range v.Notifications {
		ts = append(ts, n.Timestamp)
	}
	return ts
}
