package execenv

import (
	"bytes"
	"context"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/grovecli/grove/protocol"
)

// syncBuffer collects a command's output; waitFor blocks until it holds s.
type syncBuffer struct {
	mu   sync.Mutex
	b    bytes.Buffer
	cond *sync.Cond
}

func newSyncBuffer() *syncBuffer {
	b := &syncBuffer{}
	b.cond = sync.NewCond(&b.mu)
	return b
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.b.Write(p)
	b.cond.Broadcast()
	return len(p), nil
}

func (b *syncBuffer) waitFor(s string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for !strings.Contains(b.b.String(), s) {
		b.cond.Wait()
	}
}

// A tty session on a host: the exec-server makes the terminal, takes the
// typed input and the interrupt, and the command reports its exit.
func TestRemoteTTYSessionTakesInputAndInterrupt(t *testing.T) {
	dial, stop := serveInProcess(t)
	defer stop()
	r := NewRemote("inproc", dial)
	dir := t.TempDir()
	out := newSyncBuffer()
	proc, err := r.Start(context.Background(), ExecRequest{
		Argv: []string{"bash", "-c", "stty -echo; echo ready; read line; echo got:$line; exec sleep 1000"}, Cwd: dir, Env: os.Environ(),
		Policy: protocol.SandboxPolicy{ExcludeSlashTmp: true, Mode: protocol.SandboxDangerFullAccess}, Output: out, TTY: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	in, ok := proc.(Interactive)
	if !ok {
		t.Fatal("a remote process takes input")
	}
	out.waitFor("ready")
	if err := in.WriteInput([]byte("hello\n")); err != nil {
		t.Fatal(err)
	}
	out.waitFor("got:hello")
	if err := in.Interrupt(); err != nil {
		t.Fatal(err)
	}
	if code, err := proc.Wait(); code != 130 || err != nil {
		t.Fatalf("interrupted: %d %v", code, err)
	}
}
