package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

type addParams struct {
	A int `json:"a"`
	B int `json:"b"`
}

// lockedBuffer collects a server's output.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Split(strings.TrimSpace(l.b.String()), "\n")
}

// serveAll runs a Conn over in until EOF and returns its output lines.
func serveAll(t *testing.T, in string, m *Methods, o Options) []string {
	t.Helper()
	var out lockedBuffer
	c := NewConn(strings.NewReader(in), NewWriter(&out, WriterOptions{}), m, o)
	if err := c.Serve(context.Background()); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	c.Wait()
	return out.lines()
}

// TestServeAnswersAsJSONRPCSays: typed params, -32601 for an unknown
// method, -32602 naming the field that does not fit, -32700 (id null) for
// a line that is not JSON, -32600 for a message without a method; reading
// goes on after each, and every request read before EOF is answered.
func TestServeAnswersAsJSONRPCSays(t *testing.T) {
	m := NewMethods()
	Handle(m, "add", func(_ context.Context, p addParams) (int, error) { return p.A + p.B, nil })
	Handle(m, "fail", func(context.Context, struct{}) (any, error) { return nil, errors.New("boom") })
	var noted []int
	HandleNotification(m, "note", func(_ context.Context, p addParams) { noted = append(noted, p.A) })
	in := strings.Join([]string{
		`{"id":1,"method":"add","params":{"a":1,"b":2}}`,
		`{"id":"x","method":"nope"}`,
		`{"id":3,"method":"add","params":{"a":"one"}}`,
		`not json`,
		`{"id":4}`,
		`{"params":{}}`,
		`{"method":"note","params":{"a":7}}`,
		`{"id":5,"method":"fail"}`,
		`{"id":6,"method":"add"}`,
	}, "\n")
	got := serveAll(t, in, m, Options{Workers: 1, Queue: 8, AnswerBadLines: true})
	want := []string{
		`{"error":{"code":-32700,"message":"parse error: invalid character 'o' in literal null (expecting 'u')"},"id":null}`,
		`{"error":{"code":-32600,"message":"invalid request: no method"},"id":null}`,
		`{"id":1,"result":3}`,
		`{"error":{"code":-32601,"message":"method not found: nope"},"id":"x"}`,
		`{"error":{"code":-32602,"message":"invalid params: field a: expected int, got string"},"id":3}`,
		`{"error":{"code":-32603,"message":"boom"},"id":5}`,
		`{"id":6,"result":0}`,
	}
	if len(got) != len(want) {
		t.Fatalf("got %d lines:\n%s", len(got), strings.Join(got, "\n"))
	}
	// The reader answers bad lines at once; the worker answers requests in
	// order: compare each as JSON, in any interleaving of the two.
	for _, w := range want {
		if !containsJSON(got, w) {
			t.Errorf("missing %s in\n%s", w, strings.Join(got, "\n"))
		}
	}
	if len(noted) != 1 || noted[0] != 7 {
		t.Errorf("notification: %v", noted)
	}
}

func containsJSON(lines []string, want string) bool {
	var w any
	_ = json.Unmarshal([]byte(want), &w)
	wb, _ := json.Marshal(w)
	for _, l := range lines {
		var g any
		if json.Unmarshal([]byte(l), &g) == nil {
			if gb, _ := json.Marshal(g); bytes.Equal(gb, wb) {
				return true
			}
		}
	}
	return false
}

// TestBadLineEndsAStrictConn: without AnswerBadLines, a line that is not
// JSON ends Serve with a ParseError (the exec-server's peer is grove
// itself: such a line means the stream is not one to trust).
func TestBadLineEndsAStrictConn(t *testing.T) {
	c := NewConn(strings.NewReader("{\"id\":1,\"method\":\"x\"}\nnot json\n"), NewWriter(io.Discard, WriterOptions{}), nil, Options{})
	var pe *ParseError
	if err := c.Serve(context.Background()); !errors.As(err, &pe) {
		t.Fatalf("Serve = %v, want a ParseError", err)
	}
	c.Wait()
}

// TestLaterAndAndThen: Later answers nothing now; AndThen's follow-up
// comes after its response; RequestID names the request.
func TestLaterAndAndThen(t *testing.T) {
	m := NewMethods()
	var out lockedBuffer
	w := NewWriter(&out, WriterOptions{})
	responded := make(chan struct{})
	Handle(m, "later", func(ctx context.Context, _ struct{}) (any, error) {
		id := RequestID(ctx)
		go func() {
			_ = w.Respond(id, "late")
			close(responded)
		}()
		return Later, nil
	})
	Handle(m, "then", func(context.Context, struct{}) (any, error) {
		return AndThen{Result: "first", Then: func() { _ = w.Notify("second", nil) }}, nil
	})
	c := NewConn(strings.NewReader(`{"id":1,"method":"then"}`+"\n"+`{"id":2,"method":"later"}`+"\n"), w, m, Options{Workers: 1, Queue: 4})
	if err := c.Serve(context.Background()); err != nil {
		t.Fatal(err)
	}
	c.Wait()
	<-responded
	got := out.lines()
	if len(got) != 3 || got[0] != `{"id":1,"result":"first"}` || got[1] != `{"method":"second","params":null}` || got[2] != `{"id":2,"result":"late"}` {
		t.Fatalf("got\n%s", strings.Join(got, "\n"))
	}
}

// TestOverloadedAnswersAtOnce: with the worker busy and the queue full, a
// request is answered -32001 by the reader instead of waiting.
func TestOverloadedAnswersAtOnce(t *testing.T) {
	m := NewMethods()
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	Handle(m, "block", func(context.Context, struct{}) (struct{}, error) {
		started <- struct{}{}
		<-release
		return struct{}{}, nil
	})
	inR, inW := io.Pipe()
	var out lockedBuffer
	overloaded := make(chan struct{})
	w := NewWriter(&out, WriterOptions{Observe: func(b []byte) {
		if bytes.Contains(b, []byte("-32001")) {
			close(overloaded)
		}
	}})
	c := NewConn(inR, w, m, Options{Workers: 1, Queue: 1})
	done := make(chan error, 1)
	go func() { done <- c.Serve(context.Background()) }()
	_, _ = io.WriteString(inW, `{"id":1,"method":"block"}`+"\n")
	<-started
	_, _ = io.WriteString(inW, `{"id":2,"method":"block"}`+"\n"+`{"id":3,"method":"block"}`+"\n")
	<-overloaded
	close(release)
	_ = inW.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	c.Wait()
	got := out.lines()
	if len(got) != 3 || got[0] != `{"id":3,"error":{"code":-32001,"message":"Server overloaded; retry later."}}` {
		t.Fatalf("got\n%s", strings.Join(got, "\n"))
	}
}

// pipeConns connects a client Conn to a server Conn.
func pipeConns(t *testing.T, m *Methods) (client *Conn, stop func()) {
	t.Helper()
	cR, sW := io.Pipe()
	sR, cW := io.Pipe()
	server := NewConn(sR, NewWriter(sW, WriterOptions{}), m, Options{})
	client = NewConn(cR, NewWriter(cW, WriterOptions{Queued: true}), nil, Options{})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); _ = server.Serve(context.Background()); server.Wait(); _ = sW.Close() }()
	go func() { defer wg.Done(); _ = client.Serve(context.Background()) }()
	return client, func() {
		client.Close(errors.New("closed"))
		_ = cW.Close()
		wg.Wait()
	}
}

// TestCallMatchesAnswers: concurrent calls get their own answers; a
// server error comes back as an *Error with its code; Close fails the
// calls still waiting, and later ones, with its error.
func TestCallMatchesAnswers(t *testing.T) {
	m := NewMethods()
	Handle(m, "add", func(_ context.Context, p addParams) (int, error) { return p.A + p.B, nil })
	hold := make(chan struct{})
	Handle(m, "hold", func(context.Context, struct{}) (struct{}, error) { <-hold; return struct{}{}, nil })
	c, stop := pipeConns(t, m)
	defer stop()
	defer close(hold)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var sum int
			if err := c.Call(context.Background(), "add", addParams{A: i, B: 1}, &sum); err != nil || sum != i+1 {
				t.Errorf("add(%d, 1) = %d, %v", i, sum, err)
			}
		}()
	}
	wg.Wait()
	var re *Error
	if err := c.Call(context.Background(), "nope", nil, nil); !errors.As(err, &re) || re.Code != CodeMethodNotFound {
		t.Fatalf("unknown method: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	if err := c.Call(ctx, "hold", nil, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a call past its deadline: %v", err)
	}
	waiting := make(chan error, 1)
	go func() { waiting <- c.Call(context.Background(), "hold", nil, nil) }()
	lost := errors.New("link lost")
	c.Close(lost)
	if err := <-waiting; !errors.Is(err, lost) {
		t.Fatalf("a waiting call after Close: %v", err)
	}
	if err := c.Call(context.Background(), "add", addParams{}, nil); !errors.Is(err, lost) {
		t.Fatalf("a call after Close: %v", err)
	}
}

// TestWriterGivesUpOnAPeerThatStopsReading: a queued writer whose peer
// reads nothing fails a send after the stall bound instead of blocking
// forever, and every later send at once; Finish returns within its grace.
func TestWriterGivesUpOnAPeerThatStopsReading(t *testing.T) {
	r, pw := io.Pipe()
	defer r.Close()
	w := NewWriter(pw, WriterOptions{Queued: true, Queue: 2, Stall: 20 * time.Millisecond})
	var err error
	for i := 0; i < 10 && err == nil; i++ {
		err = w.Notify("n", i)
	}
	if !errors.Is(err, ErrPeerGone) {
		t.Fatalf("send to a peer that reads nothing: %v", err)
	}
	if err := w.Notify("n", 0); !errors.Is(err, ErrPeerGone) {
		t.Fatalf("a later send: %v", err)
	}
	w.Finish(10 * time.Millisecond)
}

// TestWriterFinishWritesWhatIsQueued: lines queued before Finish reach a
// peer that reads them, in order; a send after it fails.
func TestWriterFinishWritesWhatIsQueued(t *testing.T) {
	var out lockedBuffer
	w := NewWriter(&out, WriterOptions{Queued: true, Queue: 100})
	for i := range 50 {
		if err := w.Notify("n", i); err != nil {
			t.Fatal(err)
		}
	}
	w.Finish(10 * time.Second)
	got := out.lines()
	if len(got) != 50 || got[49] != `{"method":"n","params":49}` {
		t.Fatalf("%d lines, last %q", len(got), got[len(got)-1])
	}
	if err := w.Notify("n", 0); !errors.Is(err, ErrClosed) {
		t.Fatalf("send after Finish: %v", err)
	}
}
