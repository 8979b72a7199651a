// Package execenv is the execution seam: the one place where the tools
// start processes and touch files. A Backend is "somewhere commands run":
// this machine (Local, confined by core/sandbox) or another one reached
// through `grove exec-server` (Remote, see remote.go). Tool handlers see
// only this interface, so where a thread's tools run is the engine's
// choice, not theirs. The shape follows codex-rs's exec-server
// (ExecBackend, ExecutorFileSystem).
package execenv

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"time"

	"github.com/grovecli/grove/core/sandbox"
	"github.com/grovecli/grove/protocol"
)

// Backend runs commands and file operations for the tools.
type Backend interface {
	// Start starts req.Argv. The process, with its whole group and every
	// descendant, is killed when ctx ends; Wait then returns.
	Start(ctx context.Context, req ExecRequest) (Process, error)
	FileSystem
	// Info says where the backend runs and what its sandbox can do.
	Info() Info
}

// ExecRequest is one command to start.
type ExecRequest struct {
	Argv []string `json:"argv"`
	// Cwd is the thread's working directory: the sandbox's writable roots
	// come from it and the policy, never from Dir.
	Cwd string `json:"cwd"`
	// Dir is the directory the command runs in (default Cwd).
	Dir string `json:"dir,omitempty"`
	// DirPin is Dir as it was checked and shown for approval (this
	// machine only): the command starts there or not at all.
	DirPin *sandbox.DirPin        `json:"-"`
	Env    []string               `json:"env,omitempty"`
	Stdin  []byte                 `json:"stdin,omitempty"` // nil: /dev/null
	Policy protocol.SandboxPolicy `json:"policy"`
	// Output receives stdout and stderr, combined, as they arrive. It is
	// written from one goroutine; all of it has arrived when Wait returns.
	Output io.Writer `json:"-"`
	// TTY runs the command on a pseudo-terminal the backend allocates
	// outside the sandbox and hands in as the command's controlling
	// terminal (stdin, stdout and stderr); Stdin is then ignored and the
	// Process is an Interactive one that takes input.
	TTY bool `json:"tty,omitempty"`
}

// Interactive is a started command that takes input after its start:
// exec_command's sessions. Every Process a backend starts implements it,
// the ones without a terminal only for Interrupt.
type Interactive interface {
	Process
	// WriteInput writes p to the command's terminal, as typed (Ctrl+C is
	// "\x03", Ctrl+D "\x04"). ErrNoTerminal when it runs without one.
	WriteInput(p []byte) error
	// Interrupt delivers SIGINT to the command's process group, as
	// Ctrl+C in its terminal would.
	Interrupt() error
}

// ErrNoTerminal is WriteInput's error for a command started without TTY:
// its stdin is /dev/null, closed for good.
var ErrNoTerminal = errors.New("stdin is closed for this session; rerun exec_command with tty=true to keep stdin open")

// Process is a started command.
type Process interface {
	// Wait returns the exit code, the shell's convention (128+N for signal
	// N), once the command ended and its output was delivered. An error
	// means it could not be followed to its end (a lost connection).
	Wait() (int, error)
}

// DenialReporter is a Process whose backend can tell, once it ended,
// whether it failed on a refusal of its sandbox (Local's and Remote's).
type DenialReporter interface {
	SandboxDenied() bool
}

// SandboxDenied reports whether the ended process p failed on a refusal
// of its sandbox: the backend's typed answer the orchestrator offers a
// run outside the sandbox on. False for a backend that cannot tell.
func SandboxDenied(p Process) bool {
	d, ok := p.(DenialReporter)
	return ok && d.SandboxDenied()
}

// FileSystem is what read_file, list_dir, grep_files and apply_patch need.
// Paths are absolute on the backend's machine. Errors wrap fs.ErrNotExist
// and friends, whichever side they happened on.
type FileSystem interface {
	Stat(ctx context.Context, path string) (FileInfo, error)
	// Open opens a regular file for reading without following a symlink
	// planted in its place between a check and the open.
	Open(ctx context.Context, path string) (io.ReadCloser, error)
	// ReadDir lists a directory, sorted by name.
	ReadDir(ctx context.Context, path string) ([]DirEntry, error)
	// Walk lists the regular files beneath root (skipping .git) with their
	// slash-separated path relative to root, in lexical order, stopping
	// after max entries (Truncated is then set).
	Walk(ctx context.Context, root string, max int) (WalkResult, error)
	// ApplyPatch checks or applies an apply_patch patch beneath the
	// sandbox's writable roots (see PatchRequest).
	ApplyPatch(ctx context.Context, req PatchRequest) (PatchResult, error)
}

// FileInfo is what Stat reports.
type FileInfo struct {
	Name    string      `json:"name"`
	Size    int64       `json:"size"`
	Mode    fs.FileMode `json:"mode"`
	ModTime time.Time   `json:"mod_time"`
}

// IsDir reports whether the file is a directory.
func (f FileInfo) IsDir() bool { return f.Mode.IsDir() }

// DirEntry is one entry of ReadDir; Type holds the type bits only.
type DirEntry struct {
	Name string      `json:"name"`
	Type fs.FileMode `json:"type"`
}

// WalkFile is one regular file found by Walk.
type WalkFile struct {
	Rel  string `json:"rel"`
	Size int64  `json:"size"`
}

// WalkResult is what Walk found.
type WalkResult struct {
	Files     []WalkFile `json:"files"`
	Truncated bool       `json:"truncated,omitempty"`
}

// PatchRequest asks the backend to check a patch (Apply false: nothing is
// written) or to apply it atomically. The writable roots are computed on
// the backend from Policy and Cwd (its temp dir is its own).
type PatchRequest struct {
	Cwd    string                 `json:"cwd"`
	Input  string                 `json:"input"`
	Policy protocol.SandboxPolicy `json:"policy"`
	Apply  bool                   `json:"apply,omitempty"`
	// Outside allows writes outside the writable roots: the user approved
	// them. Without it an apply that would write outside writes nothing.
	Outside bool `json:"outside,omitempty"`
	// Writes, instead of Input, are whole-file writes (Claude Code's Write
	// and Edit): the same pinning, sandbox check, approval and atomic,
	// all-or-nothing write as a patch, without the patch grammar.
	Writes []FileWrite `json:"writes,omitempty"`
	// ApprovedPaths are the resolved paths the user approved (a check's
	// PatchResult.NeedApproval): with Outside, an apply writes outside the
	// roots only those — a directory swapped for a symlink while the
	// question was open makes it refuse, not write elsewhere.
	ApprovedPaths []string `json:"approved_paths,omitempty"`
}

// FileWrite replaces one file's whole content. Old is what the file held
// when the caller computed Content (nil: the file must not exist); a file
// that holds anything else when it is written is left alone and the write
// fails (patch.ErrChanged).
type FileWrite struct {
	Path    string  `json:"path"` // absolute
	Content string  `json:"content"`
	Old     *string `json:"old,omitempty"`
}

// PatchResult reports a checked or applied patch.
type PatchResult struct {
	// Files are the paths the patch touches, relative to Cwd when inside.
	Files []string `json:"files,omitempty"`
	// Outside says, per offending path, why it is outside the writable
	// roots; empty when every path is inside.
	Outside []string `json:"outside,omitempty"`
	// NeedApproval are the resolved paths behind Outside: what approving
	// the patch approves, and nothing else.
	NeedApproval []string `json:"need_approval,omitempty"`
	// Report and Summary describe an applied patch (the model's text and
	// the UI's line).
	Report  string `json:"report,omitempty"`
	Summary string `json:"summary,omitempty"`
	Applied bool   `json:"applied,omitempty"`
}

// Info describes a backend.
type Info struct {
	// Host is the configured host's name; empty for this machine.
	Host string `json:"host,omitempty"`
	// Sandbox is what the backend's sandbox can enforce.
	Sandbox Capabilities `json:"sandbox"`
}

// Capabilities are a machine's sandbox features.
type Capabilities struct {
	OS         string `json:"os"`
	Landlock   int    `json:"landlock_abi,omitempty"` // 0: none
	Namespaces bool   `json:"namespaces,omitempty"`
	Seccomp    bool   `json:"seccomp,omitempty"`
	// Error says why restricted modes cannot run there, if they cannot.
	Error string `json:"error,omitempty"`
}
