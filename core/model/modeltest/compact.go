package modeltest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// The Responses compact endpoint, POST /v1/responses/compact, as Codex
// calls it (openai/codex codex-rs/codex-api/src/endpoint/compact.rs: the
// body is CompactionInput {model, input, instructions} from
// codex-api/src/common.rs; the answer is read as {"output": [ResponseItem]}).
// The server keeps the input's user messages and adds one "compaction"
// item (codex-rs/protocol/src/models.rs ResponseItem::Compaction
// {encrypted_content}) standing for everything else: its content is
// "modeltest-compaction:<n>:<items>", n counting compactions, so a test
// can see which one a later request carries.

// SetCompactStatus makes the compact endpoint answer status with an error
// (0: answer normally).
func (s *Server) SetCompactStatus(status int) {
	s.mu.Lock()
	s.compactStatus = status
	s.mu.Unlock()
}

func (s *Server) serveCompact(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		return // the client went away
	}
	cr := CapturedRequest{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, RemoteAddr: r.RemoteAddr, Header: r.Header.Clone(), Raw: raw, Received: time.Now()}
	_ = json.Unmarshal(raw, &cr.Body)
	s.mu.Lock()
	if !s.noKeep {
		s.reqs = append(s.reqs, cr)
	}
	status := s.compactStatus
	s.compactions++
	n := s.compactions
	s.mu.Unlock()
	if status != 0 {
		writeError(w, status, fmt.Sprintf(`{"error":{"message":"modeltest: compact answers %d","type":"server_error"}}`, status))
		return
	}
	input, ok := cr.Body["input"].([]any)
	if _, hasModel := cr.Body["model"].(string); !ok || !hasModel {
		writeError(w, http.StatusBadRequest, `{"error":{"message":"modeltest: compact needs model and input","type":"invalid_request_error"}}`)
		return
	}
	var output []any
	for _, x := range input {
		if m, _ := x.(map[string]any); m["type"] == "message" && m["role"] == "user" {
			output = append(output, m)
		}
	}
	output = append(output, map[string]any{"type": "compaction", "encrypted_content": fmt.Sprintf("modeltest-compaction:%d:%d", n, len(input))})
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"id": fmt.Sprintf("cmp_modeltest_%d", n), "object": "response.compaction", "output": output})
}
