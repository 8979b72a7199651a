package mcp

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/grovecli/grove/core/config"
	"github.com/grovecli/grove/core/shellenv"
)

// serverEnv builds a stdio server's environment: what commands get
// (core/shellenv: the shell environment policy, provider keys and
// credential-looking variables removed), plus the server's own `env`
// table, added explicitly; a credential the server needs is named there
// (`env = { GITHUB_TOKEN = "${GITHUB_TOKEN}" }`).
func serverEnv(extra map[string]string) []string { return shellenv.Environ(extra) }

// stdioProcess is a started stdio server: its own process group, so grove
// can kill the whole tree it started (npx → node) and leave no orphans.
type stdioProcess struct {
	cmd    *exec.Cmd
	stderr *tailBuffer
}

// newStdioTransport prepares (does not start) a stdio server.
// cfg comes from launchSpec: its Cwd is set and its paths are absolute.
func newStdioTransport(cfg config.MCPServer) (*sdk.CommandTransport, *stdioProcess) {
	cmd := exec.Command(cfg.Command, cfg.Args...)
	cmd.Dir = cfg.Cwd
	// PWD says where the server is (grove's own PWD is the workspace).
	cmd.Env = withPWD(serverEnv(cfg.ProcessEnv(os.LookupEnv)), cfg.Cwd)
	// Closing waits half a second for a server to exit on end of input
	// (the spec's shutdown) before signalling it.
	cmd.SysProcAttr = serverProcAttr()
	// Bounds Wait when a grandchild keeps stderr open after the server exits.
	cmd.WaitDelay = time.Second
	tb := &tailBuffer{max: 4 << 10}
	cmd.Stderr = tb
	return &sdk.CommandTransport{Command: cmd, TerminateDuration: 500 * time.Millisecond}, &stdioProcess{cmd: cmd, stderr: tb}
}

// kill ends the server's whole process group.
func (p *stdioProcess) kill() {
	if p == nil || p.cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
}

// newHTTPTransport builds a Streamable HTTP transport with the configured
// headers; header values from the environment are read now, never stored.
func newHTTPTransport(name string, cfg config.MCPServer) (*sdk.StreamableClientTransport, error) {
	headers := http.Header{}
	for k, v := range cfg.HTTPHeaders {
		headers.Set(k, v)
	}
	for k, env := range cfg.EnvHTTPHeaders {
		if v := os.Getenv(env); v != "" {
			headers.Set(k, v)
		}
	}
	if cfg.BearerTokenEnvVar != "" {
		tok := os.Getenv(cfg.BearerTokenEnvVar)
		if tok == "" {
			return nil, fmt.Errorf("MCP server %s: bearer_token_env_var %s is not set in the environment", name, cfg.BearerTokenEnvVar)
		}
		headers.Set("Authorization", "Bearer "+tok)
	}
	client := &http.Client{Transport: headerTransport{base: http.DefaultTransport, headers: headers}}
	return &sdk.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: client, MaxRetries: 2}, nil
}

// headerTransport adds fixed headers to every request.
type headerTransport struct {
	base    http.RoundTripper
	headers http.Header
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, vs := range h.headers {
		r.Header[k] = vs
	}
	return h.base.RoundTrip(r)
}

// tailBuffer keeps the last max bytes written (a server's stderr, quoted
// when it fails).
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

// String returns the kept text, trimmed.
func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.b))
}

// withPWD sets PWD to dir (dropping OLDPWD): a server that reads $PWD
// must not be told it runs in the workspace.
func withPWD(env []string, dir string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if strings.HasPrefix(kv, "PWD=") || strings.HasPrefix(kv, "OLDPWD=") {
			continue
		}
		out = append(out, kv)
	}
	if dir != "" {
		out = append(out, "PWD="+dir)
	}
	return out
}
