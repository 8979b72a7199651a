package modeltest

import (
	"fmt"
	"net/http"
)

// Stored responses, as the Responses API keeps them: a request with
// "store": true has its response kept under its id, and a later request
// naming it in "previous_response_id" continues from it. An id the server
// does not hold (never stored, or forgotten: ForgetResponses) is refused
// with OpenAI's 400 previous_response_not_found.

// responseID names the next Responses reply (resp_modeltest_1, …) and
// remembers it when the request asked for it to be stored and the reply
// completes.
func (s *Server) responseID(r Reply, req map[string]any) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.responses++
	id := fmt.Sprintf("resp_modeltest_%d", s.responses)
	complete := r.StreamError == "" && r.DropAfterChunks == 0 && r.TruncateAfterChunks == 0 && r.Recorded == nil
	if store, _ := req["store"].(bool); store && complete {
		if s.stored == nil {
			s.stored = map[string]bool{}
		}
		s.stored[id] = true
	}
	return id
}

// ForgetResponses drops every stored response (they expired, or the
// provider lost them): a request continuing from one is refused.
func (s *Server) ForgetResponses() {
	s.mu.Lock()
	s.stored = nil
	s.mu.Unlock()
}

// unknownPrevious refuses a Responses request whose previous_response_id
// the server does not hold, with the error OpenAI sends.
func (s *Server) unknownPrevious(cr CapturedRequest) *Reply {
	prev, ok := cr.Body["previous_response_id"].(string)
	if !ok || !cr.IsResponses() {
		return nil
	}
	s.mu.Lock()
	held := s.stored[prev]
	s.mu.Unlock()
	if held {
		return nil
	}
	body := fmt.Sprintf(`{"error":{"message":"Previous response with id '%s' not found.","type":"invalid_request_error","param":"previous_response_id","code":"previous_response_not_found"}}`, prev)
	return &Reply{Status: http.StatusBadRequest, Body: body}
}
