// Package modeltest is an in-process model server for tests and
// benchmarks: it speaks Chat Completions (POST /v1/chat/completions) and
// Responses (POST /v1/responses) over SSE, with the event shapes the real
// APIs send, plus GET /v1/models; replies are scripted per test and can
// inject faults (error statuses, resets, drops, errors inside the stream,
// slow streams). No test needs the network or a key.
package modeltest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"time"
)

// CapturedRequest is one model request the server received.
type CapturedRequest struct {
	Method string
	Path   string // e.g. /v1/chat/completions
	Query  string // the raw query, if any
	// RemoteAddr is the client's address: requests sharing it came over
	// one (kept-alive) connection.
	RemoteAddr string
	Header     http.Header
	Body       map[string]any // the decoded JSON body (nil if it was not JSON)
	Raw        []byte
	Received   time.Time
}

// Server is the fake provider. Safe for concurrent requests and calls.
type Server struct {
	srv *httptest.Server

	mu            sync.Mutex
	queue         []Reply
	handler       func(CapturedRequest) Reply
	reqs          []CapturedRequest
	rules         []Rule
	models        []string
	windows       map[string]int64
	modelsStatus  int
	modelsServed  int
	responses     int             // Responses replies named so far (stored.go)
	stored        map[string]bool // ids of stored responses
	noKeep        bool            // requests are not kept (KeepRequests)
	compactions   int             // compact calls answered (compact.go)
	compactStatus int             // error status the compact endpoint answers
	closeOnce     sync.Once
}

// Start runs a server; the caller must Close it.
func Start() *Server {
	s := &Server{models: []string{"test-model"}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// NewServer starts a server that t.Cleanup closes (t is a testing.TB).
func NewServer(t interface{ Cleanup(func()) }) *Server {
	s := Start()
	t.Cleanup(s.Close)
	return s
}

// Close cuts open connections (slow streams end at once) and waits for
// every handler to return. Calling it again is harmless.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		s.srv.CloseClientConnections()
		s.srv.Close()
	})
}

// URL is the base URL, ending in /v1.
func (s *Server) URL() string { return s.srv.URL + "/v1" }

// Enqueue adds replies, consumed in order by the next model requests.
func (s *Server) Enqueue(r ...Reply) {
	s.mu.Lock()
	s.queue = append(s.queue, r...)
	s.mu.Unlock()
}

// Handle sets a function that answers whenever the queue is empty. It is
// called concurrently, outside the server's lock.
func (s *Server) Handle(f func(CapturedRequest) Reply) {
	s.mu.Lock()
	s.handler = f
	s.mu.Unlock()
}

// SetModels sets the ids GET /models lists (default: test-model).
func (s *Server) SetModels(ids []string) {
	s.mu.Lock()
	s.models = slices.Clone(ids)
	s.mu.Unlock()
}

// SetContextWindows makes GET /models give these models a context window,
// as OpenRouter does ("context_length").
func (s *Server) SetContextWindows(w map[string]int64) {
	s.mu.Lock()
	s.windows = w
	s.mu.Unlock()
}

// SetModelsStatus makes GET /models answer with this error status (0
// restores the list).
func (s *Server) SetModelsStatus(status int) {
	s.mu.Lock()
	s.modelsStatus = status
	s.mu.Unlock()
}

// ModelsRequests counts the GET /models requests served so far.
func (s *Server) ModelsRequests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.modelsServed
}

// KeepRequests(false) stops keeping requests for Requests: a benchmark
// of thousands of growing requests would hold them all. Handle still sees
// each one.
func (s *Server) KeepRequests(keep bool) {
	s.mu.Lock()
	s.noKeep = !keep
	s.mu.Unlock()
}

// Requests returns every captured model request, in arrival order.
func (s *Server) Requests() []CapturedRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reqs)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
		s.serveModels(w)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/chat/completions":
		s.serveModel(w, r, chatEvents)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/responses/compact":
		s.serveCompact(w, r)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/responses":
		s.serveModel(w, r, func(reply Reply, req map[string]any) []string {
			return responsesEvents(reply, req, s.responseID(reply, req))
		})
	default:
		writeError(w, http.StatusNotFound, fmt.Sprintf(`{"error":{"message":"modeltest: no route for %s %s","type":"invalid_request_error"}}`, r.Method, r.URL.Path))
	}
}

func (s *Server) serveModels(w http.ResponseWriter) {
	s.mu.Lock()
	ids, status, windows := slices.Clone(s.models), s.modelsStatus, s.windows
	s.modelsServed++
	s.mu.Unlock()
	if status != 0 {
		writeError(w, status, fmt.Sprintf(`{"error":{"message":"modeltest: models answer %d","type":"server_error"}}`, status))
		return
	}
	data := make([]map[string]any, len(ids))
	for i, id := range ids {
		data[i] = map[string]any{"id": id, "object": "model", "created": 1700000000, "owned_by": "modeltest"}
		if n, ok := windows[id]; ok {
			data[i]["context_length"] = n
		}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
}

// serveModel captures a model request, picks its reply and plays it.
func (s *Server) serveModel(w http.ResponseWriter, r *http.Request, events func(Reply, map[string]any) []string) {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		return // the client went away
	}
	cr := CapturedRequest{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, RemoteAddr: r.RemoteAddr, Header: r.Header.Clone(), Raw: raw, Received: time.Now()}
	_ = json.Unmarshal(raw, &cr.Body)
	reply := s.next(cr)
	if reply.Reset {
		hijackClose(w)
		return
	}
	if reply.Hang {
		<-r.Context().Done()
		return
	}
	for k, v := range reply.Header {
		w.Header().Set(k, v)
	}
	if reply.Status >= 400 {
		body := reply.Body
		if body == "" {
			body = fmt.Sprintf(`{"error":{"message":%q,"type":"server_error"}}`, http.StatusText(reply.Status))
		}
		writeError(w, reply.Status, body)
		return
	}
	if reply.ContentType != "" {
		w.Header().Set("Content-Type", reply.ContentType)
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, reply.Body)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	evs := recordedEvents(reply)
	if evs == nil {
		evs = events(reply, cr.Body)
	}
	for i, ev := range evs {
		if reply.DropAfterChunks > 0 && i >= reply.DropAfterChunks {
			hijackClose(w)
			return
		}
		if reply.TruncateAfterChunks > 0 && i >= reply.TruncateAfterChunks {
			return
		}
		if i > 0 && reply.ChunkDelay > 0 {
			t := time.NewTimer(reply.ChunkDelay)
			select {
			case <-r.Context().Done():
				t.Stop()
				return
			case <-t.C:
			}
		}
		if _, err := io.WriteString(w, ev); err != nil {
			return
		}
		if flusher != nil {
			flusher.Flush()
		}
	}
}

// next records the request and returns the queued or handled reply; a
// request that breaks a provider rule gets the rule's rejection instead
// (and consumes no scripted reply).
func (s *Server) next(cr CapturedRequest) Reply {
	s.mu.Lock()
	if !s.noKeep {
		s.reqs = append(s.reqs, cr)
	}
	rules := s.rules
	s.mu.Unlock()
	if r := s.unknownPrevious(cr); r != nil {
		return *r
	}
	for _, rule := range rules {
		if r := rule(cr); r != nil {
			return *r
		}
	}
	s.mu.Lock()
	if len(s.queue) > 0 {
		r := s.queue[0]
		s.queue = s.queue[1:]
		s.mu.Unlock()
		return r
	}
	h := s.handler
	s.mu.Unlock()
	if h != nil {
		return h(cr)
	}
	return Reply{Status: http.StatusInternalServerError, Body: `{"error":{"message":"modeltest: no scripted reply left","type":"server_error"}}`}
}

func writeError(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// hijackClose flushes what was written and closes the connection without
// finishing the response (the client sees a reset or a truncated stream).
func hijackClose(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			_ = conn.Close()
			return
		}
	}
	panic(http.ErrAbortHandler) // not hijackable: abort the response
}

// sse formats one event; chat chunks have no event name.
func sse(event string, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("modeltest: encode event: %v", err))
	}
	if event == "" {
		return "data: " + string(b) + "\n\n"
	}
	return "event: " + event + "\ndata: " + string(b) + "\n\n"
}

// pieces splits s into chunks of n bytes (default 4).
func pieces(s string, n int) []string {
	if n <= 0 {
		n = 4
	}
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

// requestModel is the model the request named, echoed like real servers do.
func requestModel(body map[string]any) string {
	if m, ok := body["model"].(string); ok && m != "" {
		return m
	}
	return "test-model"
}

// IsResponses reports whether the request went to the Responses endpoint
// (else Chat Completions).
func (r CapturedRequest) IsResponses() bool { return strings.HasSuffix(r.Path, "/responses") }
