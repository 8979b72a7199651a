package execenv

import (
	"bufio"
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeWireShapes pins the exec-server's lines as an older client
// reads them (core/rpc carries them now): answers {"id","result"}, errors
// {"id","error":{"kind","message"}} with the file-system kind, ping
// answered before the handshake, and anything else refused until it.
func TestServeWireShapes(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	in := strings.Join([]string{
		`{"id":1,"method":"ping","params":{}}`,
		`{"id":2,"method":"fs/stat","params":{"path":"/"}}`,
		`{"id":3,"method":"initialize","params":{"version":1}}`,
		`{"id":4,"method":"fs/stat","params":{"path":` + quoteJSON(missing) + `}}`,
	}, "\n") + "\n"
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- Serve(context.Background(), NewLocal(), inR, outW); _ = outW.Close() }()
	go func() { _, _ = io.WriteString(inW, in); _ = inW.Close() }()
	var lines []string
	sc := bufio.NewScanner(outR)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"id":1,"result":{}}`,
		`{"id":2,"error":{"message":"exec-server: initialize first (protocol version 1)"}}`,
		`{"id":3,"result":{"version":1,`,
		`{"id":4,"error":{"kind":"not_exist","message":"`,
	}
	if len(lines) != len(want) {
		t.Fatalf("lines:\n%s", strings.Join(lines, "\n"))
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d = %s, want it to start %s", i+1, lines[i], w)
		}
	}
}

func quoteJSON(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }
