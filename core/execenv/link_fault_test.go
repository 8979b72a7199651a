package execenv

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// fakeServer is an exec-server that speaks the protocol but misbehaves as
// told: pingUnknown answers ping as an older server would ("unknown
// method"); killIgnored never answers a command's kill with its exit (a
// process stuck in the kernel on the host, a wedged server).
type fakeServer struct {
	pingUnknown, killIgnored bool
}

func (f fakeServer) dial(t *testing.T) Dial {
	return func(context.Context) (Transport, error) {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		go f.serve(inR, outW)
		return pipeTransport{Reader: outR, WriteCloser: inW, closed: func() {}}, nil
	}
}

func (f fakeServer) serve(in io.ReadCloser, out io.WriteCloser) {
	defer out.Close()
	enc := json.NewEncoder(out)
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		var m message
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			return
		}
		switch m.Method {
		case mInitialize:
			res, _ := json.Marshal(initializeResult{Version: ProtocolVersion})
			_ = enc.Encode(message{ID: m.ID, Result: res})
		case mPing:
			if f.pingUnknown {
				_ = enc.Encode(message{ID: m.ID, Error: &wireError{Message: `exec-server: unknown method "ping"`}})
				continue
			}
			_ = enc.Encode(message{ID: m.ID, Result: json.RawMessage(`{}`)})
		case mExecStart:
			var p execStartParams
			_ = json.Unmarshal(m.Params, &p)
			_ = enc.Encode(message{ID: m.ID, Result: json.RawMessage(`{}`)})
			raw, _ := json.Marshal(outputParams{PID: p.PID, Data: []byte("started\n")})
			_ = enc.Encode(message{Method: nOutput, Params: raw})
		case mExecKill:
			_ = enc.Encode(message{ID: m.ID, Result: json.RawMessage(`{}`)})
			if !f.killIgnored {
				var p pidParams
				_ = json.Unmarshal(m.Params, &p)
				raw, _ := json.Marshal(exitParams{PID: p.PID, Code: 137})
				_ = enc.Encode(message{Method: nExit, Params: raw})
			}
		default:
			_ = enc.Encode(message{ID: m.ID, Error: &wireError{Message: "exec-server: unknown method " + m.Method}})
		}
	}
}

// waitBounded waits for p, failing the test if it never ends.
func waitBounded(t *testing.T, p Process) (int, error) {
	t.Helper()
	type result struct {
		code int
		err  error
	}
	done := make(chan result, 1)
	go func() { c, err := p.Wait(); done <- result{c, err} }()
	select {
	case r := <-done:
		return r.code, r.err
	case <-time.After(60 * time.Second):
		t.Fatal("the call is still open 60 s after its time ran out")
		return 0, nil
	}
}

// Fault round (issue 36), angle 1: the link answers but the host never
// reports the end of a command it was told to kill (stuck in the kernel,
// a wedged server). The call ends KillGrace after its timeout with the
// command's fate unknown (never "killed"), and the connection is
// dropped so the next call starts clean.
func TestKillWithoutExitNoticeEndsTheCall(t *testing.T) {
	r := NewRemote("box", fakeServer{killIgnored: true}.dial(t))
	r.SetLinkTimes(LinkTimes{KeepAlive: time.Hour, DeadAfter: time.Hour, KillGrace: 100 * time.Millisecond})
	defer r.Close()
	ctx, cancel := context.WithCancel(context.Background())
	p, err := r.Start(ctx, ExecRequest{Argv: []string{"sleep", "30"}})
	if err != nil {
		t.Fatal(err)
	}
	cancel() // its time ran out
	_, err = waitBounded(t, p)
	if !errors.Is(err, ErrFateUnknown) || !strings.Contains(err.Error(), "after asking it to kill") {
		t.Fatalf("Wait = %v, want the command's fate unknown", err)
	}
}

// Fault round (issue 36), angle 2: a host with an older grove, whose
// exec-server does not know the keep-alive, is not declared unreachable
// for it: commands keep working and a timed-out one is killed as before.
func TestOlderServerWithoutPingKeepsWorking(t *testing.T) {
	r := NewRemote("box", fakeServer{pingUnknown: true}.dial(t))
	r.SetLinkTimes(LinkTimes{KeepAlive: time.Millisecond, DeadAfter: time.Second, KillGrace: 5 * time.Second})
	defer r.Close()
	var out strings.Builder
	for i := range 3 {
		ctx, cancel := context.WithCancel(context.Background())
		p, err := r.Start(ctx, ExecRequest{Argv: []string{"true"}, Output: &out})
		if err != nil {
			t.Fatalf("command %d on a server without ping: %v", i, err)
		}
		cancel()
		if code, err := waitBounded(t, p); err != nil || code != 137 {
			t.Fatalf("command %d: %d %v", i, code, err)
		}
	}
}
