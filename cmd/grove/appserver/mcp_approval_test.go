package appserver

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/protocol"
)

// submitted records the ops a front end sends its engine.
type submitted struct {
	engine.FrontEnd
	ops []protocol.Op
}

func (s *submitted) Submit(op protocol.Op) error {
	s.ops = append(s.ops, op)
	return nil
}

// TestMCPToolApprovalIsAnElicitation: an MCP tool call's approval goes out
// as Codex 0.169 asks it (mcpServer/elicitation/request, form mode, empty
// form, _meta.codex_approval_kind mcp_tool_call: codex-rs/core/src/
// mcp_tool_call.rs), valid against the vendored schema, offering
// _meta.persist "session" only when the engine remembers it (approval_mode
// auto, not prompt or writes); the client's action and persist are read
// back as Codex's parse_mcp_tool_approval_elicitation_response reads them.
func TestMCPToolApprovalIsAnElicitation(t *testing.T) {
	for _, tc := range []struct {
		name       string
		noRemember bool
		result     string
		want       protocol.ReviewDecision
	}{
		{"auto, for the session", false, `{"action":"accept","content":{},"_meta":{"persist":"session"}}`, protocol.DecisionApprovedForSession},
		{"auto, once", false, `{"action":"accept","content":{},"_meta":null}`, protocol.DecisionApproved},
		{"prompt, once", true, `{"action":"accept","content":{}}`, protocol.DecisionApproved},
		{"prompt, declined", true, `{"action":"decline","content":null}`, protocol.DecisionDenied},
		{"prompt, cancelled", true, `{"action":"cancel","content":null}`, protocol.DecisionDenied},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eng := &submitted{}
			sess := &session{eng: eng}
			th := &thread{sess: sess, info: protocol.ThreadInfo{ID: "th-1"}, turnID: "turn-1", declined: map[string]bool{}}
			s := &Server{threads: map[protocol.ThreadID]*thread{"th-1": th}, approvals: map[int64]*pendingApproval{}}
			req := protocol.ApprovalRequest{ID: "ap-1", ThreadID: "th-1", Kind: protocol.ApprovalExec, CallID: "call-1",
				Command: "mcp__notes__write_note", Reason: `MCP tool notes › write.note; arguments: {"text":"hi"}`,
				MCP: &protocol.MCPToolApproval{Server: "notes", Tool: "write.note", NoRemember: tc.noRemember}}
			var ask *outMsg
			for _, m := range s.requestApproval(sess, th, req) {
				if m.reqID > 0 {
					ask = &m
				}
			}
			if ask == nil || ask.method != "mcpServer/elicitation/request" {
				t.Fatalf("request %+v, want mcpServer/elicitation/request", ask)
			}
			b, _ := json.Marshal(ask.params)
			inst, err := jsonschema.UnmarshalJSON(strings.NewReader(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			if err := codexSchemas.get(t, "ServerRequest.json:mcpServer/elicitation/request").Validate(inst); err != nil {
				t.Fatalf("does not match Codex 0.169's McpServerElicitationRequestParams:\n%s\n%v", b, err)
			}
			var p struct {
				ServerName string `json:"serverName"`
				TurnID     string `json:"turnId"`
				Message    string `json:"message"`
				Meta       struct {
					Kind    string   `json:"codex_approval_kind"`
					Persist []string `json:"persist"`
				} `json:"_meta"`
			}
			_ = json.Unmarshal(b, &p)
			if p.ServerName != "notes" || p.TurnID != "turn-1" || p.Meta.Kind != "mcp_tool_call" || !strings.HasPrefix(p.Message, `Allow the notes MCP server to run tool "write.note"?`) {
				t.Fatalf("params %s", b)
			}
			if offers := len(p.Meta.Persist) == 1 && p.Meta.Persist[0] == "session"; offers == tc.noRemember {
				t.Fatalf("persist %v with no_remember %v", p.Meta.Persist, tc.noRemember)
			}
			s.answer(protocol.RPCMessage{ID: json.RawMessage(strconv.FormatInt(ask.reqID, 10)), Result: json.RawMessage(tc.result)})
			if len(eng.ops) != 1 || eng.ops[0].ApprovalID != "ap-1" || eng.ops[0].Decision != tc.want {
				t.Fatalf("ops %+v, want %s", eng.ops, tc.want)
			}
		})
	}
}
