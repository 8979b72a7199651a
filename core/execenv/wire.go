package execenv

import (
	"errors"
	"io/fs"
	"os"

	"github.com/grovecli/grove/core/rpc"
)

// The exec-server protocol: one JSON object per line each way, over the
// server's stdin and stdout (an ssh session's, for a host). The client
// sends requests {"id","method","params"}; the server answers each with
// {"id","result"} or {"id","error"} and sends notifications {"method",
// "params"} without an id: a command's output and its exit. The first
// request is "initialize"; a server that speaks another version refuses
// every other request. The server kills every process it started when its
// stdin closes.

// ProtocolVersion is bumped on every incompatible change.
const ProtocolVersion = 1

// Method names.
const (
	mInitialize = "initialize"
	mExecStart  = "exec/start"
	mExecKill   = "exec/kill"
	// Sessions (servers whose handshake says Sessions): input typed on a
	// tty command's terminal, and Ctrl+C as SIGINT to its group.
	mExecWrite     = "exec/write"
	mExecInterrupt = "exec/interrupt"
	mStat          = "fs/stat"
	mOpen          = "fs/open"
	mRead          = "fs/read"
	mClose         = "fs/close"
	mReadDir       = "fs/readdir"
	mWalk          = "fs/walk"
	mPatch         = "fs/patch"
	nOutput        = "exec/output"
	nExit          = "exec/exit"
)

// message is every line of the protocol (core/rpc frames and routes them).
type message = rpc.Message

// wireError carries an error and its kind (not_exist | exist | permission
// | invalid), so that errors.Is(err, fs.ErrNotExist) holds on the client
// as it did on the server. The protocol's own errors (an unknown method,
// params that do not fit) carry their JSON-RPC code instead.
type wireError = rpc.Error

func toWire(err error) *wireError {
	var re *rpc.Error
	if errors.As(err, &re) {
		return re
	}
	w := &wireError{Message: err.Error()}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		w.Kind = "not_exist"
	case errors.Is(err, fs.ErrExist):
		w.Kind = "exist"
	case errors.Is(err, fs.ErrPermission):
		w.Kind = "permission"
	case errors.Is(err, fs.ErrInvalid):
		w.Kind = "invalid"
	}
	return w
}

// remoteError is an error that happened on the server.
type remoteError struct{ w wireError }

func (e *remoteError) Error() string { return e.w.Message }

func (e *remoteError) Is(target error) bool {
	switch e.w.Kind {
	case "not_exist":
		return target == fs.ErrNotExist
	case "exist":
		return target == fs.ErrExist
	case "permission":
		return target == fs.ErrPermission
	case "invalid":
		return target == fs.ErrInvalid
	}
	return false
}

// initializeParams opens a session.
type initializeParams struct {
	Version int `json:"version"`
	// Session is the client's token for this connection: a later
	// connection names it to exec/reap what this one left running.
	Session string `json:"session,omitempty"`
}

// initializeResult is the handshake's answer: the server's version and
// its machine's sandbox.
type initializeResult struct {
	Version int          `json:"version"`
	Sandbox Capabilities `json:"sandbox"`
	// TempDir is the host's temp directory (writable in its sandbox).
	TempDir string `json:"temp_dir"`
	// Sessions says the server takes exec/write and exec/interrupt (an
	// older grove on the host lacks them; its commands still run).
	Sessions bool `json:"sessions,omitempty"`
}

type writeParams struct {
	PID  uint64 `json:"pid"`
	Data []byte `json:"data"` // base64 in JSON
}

type execStartParams struct {
	PID uint64 `json:"pid"` // chosen by the client
	ExecRequest
}

type pidParams struct {
	PID uint64 `json:"pid"`
}

type outputParams struct {
	PID  uint64 `json:"pid"`
	Data []byte `json:"data"` // base64 in JSON
}

type exitParams struct {
	PID   uint64 `json:"pid"`
	Code  int    `json:"code"`
	Error string `json:"error,omitempty"`
	// Denied: the host's backend saw the command fail on a refusal of its
	// sandbox (an older exec-server never says so).
	Denied bool `json:"sandbox_denied,omitempty"`
}

type pathParams struct {
	Path string `json:"path"`
}

type handleParams struct {
	Handle uint64 `json:"handle"`
}

type readResult struct {
	Data []byte `json:"data"`
	EOF  bool   `json:"eof,omitempty"`
}

type walkParams struct {
	Root string `json:"root"`
	Max  int    `json:"max"`
}

// maxLine bounds one protocol line (a read chunk is far smaller).
const maxLine = 64 << 20

// readChunk is how much one fs/read returns.
const readChunk = 1 << 20

// tempDir is reported in the handshake.
func tempDir() string { return os.TempDir() }

// Methods added for stalled links (protocol version unchanged: an older
// server answers them "unknown method", which the client reads as "no
// keep-alive / no reap" and says so).
const (
	// mPing is the keep-alive: a server that answers is alive and its
	// link is open.
	mPing = "ping"
	// mReap kills what an earlier, lost session of this client left
	// running and reports it.
	mReap = "exec/reap"
)

// reapParams names the lost session by the token its initialize carried.
type reapParams struct {
	Session string `json:"session"`
}

// reapResult says what the lost session's server was doing when the new
// one found it.
type reapResult struct {
	// Found: the lost server's record was there (it did not end cleanly).
	Found bool `json:"found"`
	// Killed: it was still running (stalled or cut off) and is now dead,
	// with every command it had started.
	Killed bool `json:"killed"`
	// Commands are those it had running: what was killed, or what had
	// been running when it ended by itself.
	Commands []string `json:"commands,omitempty"`
}
