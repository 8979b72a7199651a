package execenv

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/grovecli/grove/core/testkit"
	"github.com/grovecli/grove/protocol"
)

// pipeTransport connects a Remote to an in-process Serve.
type pipeTransport struct {
	io.Reader
	io.WriteCloser
	closed func()
}

func (p pipeTransport) Close() error { p.closed(); return p.WriteCloser.Close() }
func (p pipeTransport) Why() string  { return "" }

// serveInProcess starts Serve on pipes; stop closes its stdin and waits
// for it to return.
func serveInProcess(t *testing.T) (dial Dial, stop func()) {
	t.Helper()
	var served chan error
	var toServer *io.PipeWriter
	dial = func(context.Context) (Transport, error) {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		toServer = inW
		served = make(chan error, 1)
		go func() {
			served <- Serve(context.Background(), NewLocal(), inR, outW)
			_ = outW.Close()
		}()
		return pipeTransport{Reader: outR, WriteCloser: inW, closed: func() {}}, nil
	}
	stop = func() {
		_ = toServer.Close()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	}
	return dial, stop
}

// The protocol end to end without ssh: handshake, a command with its
// output, file operations with errors that keep their kind, and the
// server killing what it started when its stdin closes.
func TestServeRoundTripAndStdinCloseKills(t *testing.T) {
	dial, stop := serveInProcess(t)
	r := NewRemote("inproc", dial)
	ctx := context.Background()
	info, err := r.Connect(ctx)
	if err != nil || info.Host != "inproc" || info.Sandbox.OS == "" {
		t.Fatalf("Connect = %+v, %v", info, err)
	}
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte(strings.Repeat("x", readChunk+10)), 0o644))
	var out lockedBuffer
	p, err := r.Start(ctx, ExecRequest{Argv: []string{"bash", "-c", "cat; echo err >&2; exit 7"}, Cwd: dir, Env: os.Environ(),
		Stdin: []byte("in\n"), Policy: protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxDangerFullAccess}, Output: &out})
	if err != nil {
		t.Fatal(err)
	}
	if code, err := p.Wait(); code != 7 || err != nil || out.String() != "in\nerr\n" {
		t.Fatalf("Wait = %d, %v, output %q", code, err, out.String())
	}
	f, err := r.Open(ctx, filepath.Join(dir, "a.txt"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(f) // two chunks
	_ = f.Close()
	if err != nil || len(b) != readChunk+10 {
		t.Fatalf("read %d bytes, %v", len(b), err)
	}
	if _, err := r.Stat(ctx, filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Stat of a missing file = %v, want fs.ErrNotExist", err)
	}
	if w, err := r.Walk(ctx, dir, 10); err != nil || len(w.Files) != 1 {
		t.Fatalf("Walk = %+v, %v", w, err)
	}

	// A command still running when the server's stdin closes dies with
	// its group.
	var live lockedBuffer
	p, err = r.Start(ctx, ExecRequest{Argv: []string{"bash", "-c", "sleep 300 & echo $!; wait"}, Cwd: dir, Env: os.Environ(),
		Policy: protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxDangerFullAccess}, Output: &live})
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	testkit.Eventually(t, "the background pid", func() bool {
		pid, err = strconv.Atoi(strings.TrimSpace(live.String()))
		return err == nil
	})
	stop() // returns once every command it started has ended
	testkit.Eventually(t, "the background sleep to die", func() bool { return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) })
	// The server reported the kill before it returned (or the stream
	// ended first): either way the command did not end well.
	if code, err := p.Wait(); err == nil && code == 0 {
		t.Fatalf("Wait after the server's stdin closed = %d, %v", code, err)
	}
}

func TestServeRefusesAnotherVersion(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- Serve(context.Background(), NewLocal(), inR, outW) }()
	go func() {
		_, _ = io.WriteString(inW, `{"id":1,"method":"initialize","params":{"version":99}}`+"\n"+`{"id":2,"method":"fs/stat","params":{"path":"/"}}`+"\n")
		_ = inW.Close()
	}()
	b := make([]byte, 4096)
	var got strings.Builder
	for !strings.Contains(got.String(), `"id":2`) {
		n, err := outR.Read(b)
		if err != nil {
			t.Fatalf("read: %v (got %s)", err, got.String())
		}
		got.Write(b[:n])
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if s := got.String(); !strings.Contains(s, "protocol version 99 is not supported (this grove speaks 1)") || !strings.Contains(s, "initialize first") {
		t.Fatalf("answers: %s", s)
	}
}
