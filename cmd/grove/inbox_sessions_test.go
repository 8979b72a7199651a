package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/model/modeltest"
)

// lastMessage is a chat request's last message: role and text.
func lastMessage(r modeltest.CapturedRequest) (string, string) {
	msgs := r.Messages()
	if len(msgs) == 0 {
		return "", ""
	}
	last, _ := msgs[len(msgs)-1].(map[string]any)
	role, _ := last["role"].(string)
	return role, fmt.Sprint(last["content"])
}

// execEvents decodes grove exec --json's stream.
func execEvents(t *testing.T, out string) []map[string]any {
	t.Helper()
	var evs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var ev map[string]any
		if json.Unmarshal([]byte(line), &ev) == nil {
			evs = append(evs, ev)
		}
	}
	return evs
}

var subagentIDRe = regexp.MustCompile(`"subagent_id":"([^"]+)"`)

// TestExecInboxSurfaceEndToEnd: under agents.surface=inbox, the root
// starts a sub-agent and ends its turn; the sub-agent asks a question;
// exec keeps running, the idle root is woken, reads the inbox, answers,
// is woken again by the completion, and only then does exec end.
func TestExecInboxSurfaceEndToEnd(t *testing.T) {
	noProviderEnv(t)
	s := modeltest.NewServer(t)
	s.Handle(func(r modeltest.CapturedRequest) modeltest.Reply {
		role, text := lastMessage(r)
		if strings.Contains(string(r.Raw), "You are a sub-agent working on a task") {
			switch {
			case role == "tool":
				return modeltest.Reply{Text: "asked; waiting"}
			case strings.Contains(text, "go ahead"):
				return modeltest.Reply{Text: "kid finished the job"}
			}
			return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "k1", Name: "notify_parent", Arguments: `{"type":"question","content":"may I delete tmp?"}`}}}
		}
		switch {
		case role == "user" && strings.Contains(text, "new notifications from sub-agents"):
			return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: fmt.Sprintf("c%d", len(s.Requests())), Name: "check_inbox", Arguments: `{}`}}}
		case role == "tool" && strings.Contains(text, "kid finished the job"):
			return modeltest.Reply{Text: "final: the kid finished"}
		case role == "tool" && strings.Contains(text, `"type":"question"`) && strings.Contains(text, `"read":false`):
			id := subagentIDRe.FindStringSubmatch(text)[1]
			return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "r1", Name: "reply_to_subagent", Arguments: fmt.Sprintf(`{"subagent_id":%q,"message":"go ahead"}`, id)}}}
		case role == "tool":
			return modeltest.Reply{Text: "waiting for the sub-agent"}
		}
		return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "s1", Name: "create_subagent", Arguments: `{"task":"clean up tmp"}`}}}
	})
	t.Setenv("OPENAI_BASE_URL", s.URL())
	t.Setenv("OPENAI_API_KEY", "sk-test")
	out, errOut, err := runCLI(t, t.TempDir(), "", "exec", "--json=grove", "-c", "agents.surface=inbox", "--cd", t.TempDir(), "-m", "test-model", "clean up")
	if err != nil {
		t.Fatalf("exec: %v\n%s", err, errOut)
	}
	var inboxEvents int
	var rootFinal string
	tools := map[string]int{}
	seed := map[string]map[string]any{} // seed 001's EventMsg variants, last of each
	for _, ev := range execEvents(t, out) {
		switch ev["type"] {
		case "subagent_created", "inbox_response", "subagent_reply_success":
			seed[ev["type"].(string)] = ev
		case "inbox":
			inboxEvents++
		case "tool_call_end":
			tool, _ := ev["tool"].(map[string]any)
			tools[fmt.Sprint(tool["name"])]++
		case "message":
			rootFinal = fmt.Sprint(ev["message"])
		}
	}
	for _, name := range []string{"create_subagent", "notify_parent", "check_inbox", "reply_to_subagent"} {
		if tools[name] == 0 {
			t.Errorf("no %s call in the stream", name)
		}
	}
	if inboxEvents < 3 || rootFinal != "final: the kid finished" {
		t.Fatalf("inbox events %d, last message %q\n%s", inboxEvents, rootFinal, out)
	}
	// Seed 001's variants are in the stream too, with the seed's fields.
	kid, _ := seed["subagent_created"]["subagent_id"].(string)
	if kid == "" || seed["subagent_reply_success"]["subagent_id"] != kid {
		t.Errorf("subagent_created %v, subagent_reply_success %v", seed["subagent_created"], seed["subagent_reply_success"])
	}
	notes, _ := seed["inbox_response"]["notifications"].([]any)
	if len(notes) == 0 {
		t.Fatalf("inbox_response without notifications: %v", seed["inbox_response"])
	}
	n := notes[0].(map[string]any)
	body, _ := n["notification"].(map[string]any)
	if n["subagent_id"] != kid || body["type"] != "completed" || body["summary"] != "kid finished the job" {
		t.Errorf("latest notification %v", n)
	}
}

// TestExecSessionsSurfaceEndToEnd: under agents.surface=sessions with a
// configured profile, the root creates a session, checks it without
// waiting, waits for it and cancels it once finished.
func TestExecSessionsSurfaceEndToEnd(t *testing.T) {
	noProviderEnv(t)
	s := modeltest.NewServer(t)
	idRe := regexp.MustCompile(`"session_id":"([^"]+)"`)
	var sid string
	s.Handle(func(r modeltest.CapturedRequest) modeltest.Reply {
		role, text := lastMessage(r)
		if strings.Contains(string(r.Raw), "You review prose.") {
			return modeltest.Reply{Text: "prose reviewed"}
		}
		if role != "tool" {
			return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: "create_session", Arguments: `{"session_type":"reviewer","prompt":"review README"}`}}}
		}
		switch {
		case strings.Contains(text, `"session_id"`):
			sid = idRe.FindStringSubmatch(text)[1]
			return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "w1", Name: "wait_session", Arguments: fmt.Sprintf(`{"session_id":%q,"timeout_ms":60000}`, sid)}}}
		case strings.Contains(text, `"result"`):
			return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "x1", Name: "cancel_session", Arguments: fmt.Sprintf(`{"session_id":%q}`, sid)}}}
		case strings.Contains(text, `"cancelled"`):
			return modeltest.Reply{Text: "final: " + text}
		}
		return modeltest.Reply{Text: "unexpected: " + text}
	})
	t.Setenv("OPENAI_BASE_URL", s.URL())
	t.Setenv("OPENAI_API_KEY", "sk-test")
	out, errOut, err := runCLI(t, t.TempDir(), "", "exec", "--json=grove", "-c", "agents.surface=sessions",
		"-c", `agents.profiles.reviewer.developer_instructions="You review prose."`, "--cd", t.TempDir(), "-m", "test-model", "review the README")
	if err != nil {
		t.Fatalf("exec: %v\n%s", err, errOut)
	}
	outputs := map[string]string{}
	var spawned bool
	for _, ev := range execEvents(t, out) {
		if ev["type"] == "tool_call_end" {
			tool, _ := ev["tool"].(map[string]any)
			outputs[fmt.Sprint(tool["name"])] = fmt.Sprint(tool["output"])
		}
		if bg, _ := ev["background"].(map[string]any); bg != nil && strings.HasPrefix(fmt.Sprint(bg["message"]), "spawned child session ") {
			spawned = true
		}
	}
	if outputs["wait_session"] != `{"result":"prose reviewed"}` || outputs["cancel_session"] != `{"cancelled":false}` || !spawned {
		t.Fatalf("outputs %v spawned %v\n%s", outputs, spawned, out)
	}
}

// TestExecInboxResumeKeepsUnread: a first run leaves the sub-agent's
// notifications unread (the woken root looks without marking them); a
// second `grove exec --resume` finds them still unread, read:false, and
// marks them read.
func TestExecInboxResumeKeepsUnread(t *testing.T) {
	noProviderEnv(t)
	s := modeltest.NewServer(t)
	s.Handle(func(r modeltest.CapturedRequest) modeltest.Reply {
		role, text := lastMessage(r)
		if strings.Contains(string(r.Raw), "You are a sub-agent working on a task") {
			if role == "tool" {
				return modeltest.Reply{Text: "scouting done"}
			}
			return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "k1", Name: "notify_parent", Arguments: `{"type":"message","content":"found a door"}`}}}
		}
		switch {
		case role == "user" && strings.Contains(text, "new notifications from sub-agents"):
			return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: fmt.Sprintf("p%d", len(s.Requests())), Name: "check_inbox", Arguments: `{"mark_as_read":false}`}}}
		case role == "user" && strings.Contains(text, "read your inbox"):
			return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "q1", Name: "check_inbox", Arguments: `{}`}}}
		case role == "tool" && strings.Contains(text, `"notifications"`):
			return modeltest.Reply{Text: "inbox: " + text}
		case role == "tool":
			return modeltest.Reply{Text: "started"}
		}
		return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "s1", Name: "create_subagent", Arguments: `{"task":"scout the house"}`}}}
	})
	t.Setenv("OPENAI_BASE_URL", s.URL())
	t.Setenv("OPENAI_API_KEY", "sk-test")
	home, work := t.TempDir(), t.TempDir()
	out, errOut, err := runCLI(t, home, "", "exec", "--json=grove", "-c", "agents.surface=inbox", "--cd", work, "-m", "test-model", "scout")
	if err != nil {
		t.Fatalf("exec: %v\n%s", err, errOut)
	}
	var rootID string
	for _, ev := range execEvents(t, out) {
		if th, _ := ev["thread"].(map[string]any); ev["type"] == "thread_started" && th != nil && th["parent_id"] == nil {
			rootID = fmt.Sprint(ev["thread_id"])
			break
		}
	}
	if rootID == "" {
		t.Fatalf("no root thread_started:\n%s", out)
	}
	out, errOut, err = runCLI(t, home, "", "exec", "--json=grove", "-c", "agents.surface=inbox", "--resume", rootID, "--cd", work, "-m", "test-model", "read your inbox")
	if err != nil {
		t.Fatalf("exec --resume: %v\n%s", err, errOut)
	}
	var checked string
	for _, ev := range execEvents(t, out) {
		if tool, _ := ev["tool"].(map[string]any); ev["type"] == "tool_call_end" && tool != nil && tool["call_id"] == "q1" {
			checked = fmt.Sprint(tool["output"])
		}
	}
	if strings.Count(checked, `"read":false`) != 2 || !strings.Contains(checked, `"content":"found a door"`) || !strings.Contains(checked, `"summary":"scouting done"`) {
		t.Fatalf("check_inbox after resume: %s\n%s", checked, out)
	}
}
