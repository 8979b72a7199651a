package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/grovecli/grove/core/app"
	"github.com/grovecli/grove/protocol"
)

// execFlags are `grove exec`'s flags: Codex's `codex exec` flags (same
// names, same meaning; codex-rs/exec/src/cli.rs) and grove's own.
type execFlags struct {
	// json: "" (human), "codex" (--json, --experimental-json: Codex's
	// JSONL) or "grove" (--json=grove, --events: grove's own events).
	json             string
	events           bool
	experimentalJSON bool
	resume           string
	fork             bool
	approveWorkdirs  bool
	// bypassHookTrust runs unreviewed hooks (--dangerously-bypass-hook-trust).
	bypassHookTrust  bool
	skipGitRepoCheck bool
	outputLastMsg    string
	fullAuto         bool
	yolo             bool
	images           []string
	addDirs          []string
	ephemeral        bool
	color            string
	outputSchema     string
	// resumeLast / resumeAll are `exec resume --last [--all]`.
	resumeLast lastFlag
	resumeAll  bool
	// ignoreUserConfig, ignoreRules, oss, localProvider: Codex's.
	ignoreUserConfig bool
	ignoreRules      bool
	// clientMetadata are --responsesapi-client-metadata KEY=VALUE pairs.
	clientMetadata []string
	oss            bool
	localProvider  string
}

// register adds the flags to exec as persistent flags, so `exec resume`
// takes them too (Codex marks them global).
func (f *execFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.json, "json", "", "print Codex's JSONL events on stdout (--json=grove: grove's own events)")
	fs.Lookup("json").NoOptDefVal = "codex"
	fs.BoolVar(&f.experimentalJSON, "experimental-json", false, "same as --json (the name Codex's TypeScript SDK uses)")
	fs.BoolVar(&f.events, "events", false, "print grove's own events (every event as one JSON object per line); same as --json=grove")
	fs.StringVar(&f.resume, "resume", "", "continue the session with this id (or unique prefix); see also `exec resume`")
	fs.BoolVar(&f.fork, "fork", false, "with --resume or exec resume (or as `--fork ID PROMPT`): continue a copy of the session as a new one (the original is left as it is)")
	fs.BoolVar(&f.approveWorkdirs, "approve-workdirs", false, "approve sub-agents' working_directory changes")
	fs.BoolVar(&f.skipGitRepoCheck, "skip-git-repo-check", false, "accepted for Codex scripts: grove never requires a git repository")
	fs.StringVarP(&f.outputLastMsg, "output-last-message", "o", "", "write the agent's last message to FILE")
	fs.BoolVar(&f.fullAuto, "full-auto", false, "sandbox workspace-write; nobody is asked (approval never), as in codex exec")
	fs.BoolVar(&f.bypassHookTrust, "dangerously-bypass-hook-trust", false, "run hooks that were never reviewed or changed since (this run only; a project's hooks still need a trusted project)")
	fs.BoolVar(&f.yolo, "dangerously-bypass-approvals-and-sandbox", false, "no sandbox and no approvals (danger-full-access, never): only in a disposable environment")
	fs.StringSliceVarP(&f.images, "image", "i", nil, "attach image FILE(s) to the prompt (repeatable, comma-separated)")
	fs.StringArrayVar(&f.addDirs, "add-dir", nil, "also let the agents write in DIR (repeatable)")
	fs.BoolVar(&f.ephemeral, "ephemeral", false, "keep no session files: the session cannot be resumed")
	fs.StringVar(&f.color, "color", "auto", "colour of the progress output: always, never or auto (grove's progress has none)")
	fs.StringVar(&f.outputSchema, "output-schema", "", "JSON Schema FILE the final message must follow")
	fs.BoolVar(&f.ignoreUserConfig, "ignore-user-config", false, "read no config.toml (grove's or Codex's): defaults, -c and flags only")
	fs.BoolVar(&f.ignoreRules, "ignore-rules", false, "accepted for Codex scripts: grove has no execpolicy .rules files")
	fs.BoolVar(&f.oss, "oss", false, "use a local model server (--local-provider, default ollama)")
	fs.StringVar(&f.localProvider, "local-provider", "", "the local server --oss uses: ollama or lmstudio")
	fs.StringArrayVar(&f.clientMetadata, "responsesapi-client-metadata", nil, "KEY=VALUE sent with each model request of the turn in the x-codex-turn-metadata header (repeatable)")
}

// mode is the output mode after the aliases.
func (f *execFlags) mode() (string, error) {
	m := f.json
	if f.experimentalJSON && m == "" {
		m = "codex"
	}
	if f.events {
		if m == "codex" {
			return "", errors.New("--events prints grove's events and --json Codex's: pick one")
		}
		m = "grove"
	}
	switch m {
	case "", "codex", "grove":
		return m, nil
	}
	return "", fmt.Errorf("--json=%s: expected --json (Codex's JSONL) or --json=grove", m)
}

// apply checks the flags and turns the ones that are config into
// overrides of g (before the session loads its config).
func (f *execFlags) apply(g *globalFlags) error {
	switch f.color {
	case "always", "never", "auto":
	default:
		return fmt.Errorf("--color %q: expected always, never or auto", f.color)
	}
	if f.fullAuto && f.yolo {
		return errors.New("--full-auto and --dangerously-bypass-approvals-and-sandbox do not go together")
	}
	switch {
	case f.fullAuto:
		// codex exec: headless, so approval never (codex-rs/exec/src/lib.rs
		// "Default to never ask for approvals in headless mode"; Codex's
		// approval_policy.rs exec_full_auto_preserves_never_…).
		g.sandbox, g.approval = "workspace-write", "never"
	case f.yolo:
		g.sandbox, g.approval = "danger-full-access", "never"
	}
	g.ignoreUserConfig = f.ignoreUserConfig
	if f.ephemeral && os.Getenv("CODEX_MATERIALIZE_EPHEMERAL_ROLLOUTS") == "1" {
		// Codex's debugging switch: an --ephemeral run still writes its
		// rollout (exec/tests/suite/ephemeral.rs).
		f.ephemeral = false
	}
	if f.localProvider != "" && !f.oss {
		return errors.New("--local-provider goes with --oss")
	}
	if f.oss {
		p := f.localProvider
		if p == "" {
			p = "ollama"
		}
		if p != "ollama" && p != "lmstudio" {
			return fmt.Errorf("--local-provider %q: expected ollama or lmstudio", p)
		}
		g.overrides = append(g.overrides, "model_provider="+quote(p))
	}
	for _, d := range f.addDirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			return fmt.Errorf("--add-dir %s: %w", d, err)
		}
		if st, err := os.Stat(abs); err != nil || !st.IsDir() {
			return fmt.Errorf("--add-dir %s: not a directory", d)
		}
		g.addDirs = append(g.addDirs, abs)
	}
	for _, img := range f.images {
		if _, err := os.Stat(img); err != nil {
			return fmt.Errorf("--image %s: %w", img, err)
		}
	}
	return nil
}

// schema reads --output-schema: a JSON object.
func (f *execFlags) schema() (json.RawMessage, error) {
	if f.outputSchema == "" {
		return nil, nil
	}
	data, err := os.ReadFile(f.outputSchema)
	if err != nil {
		return nil, fmt.Errorf("--output-schema: %w", err)
	}
	if err := app.CheckTurnSettings(&protocol.TurnOverrides{OutputSchema: data}); err != nil {
		return nil, fmt.Errorf("--output-schema %s: %w", f.outputSchema, err)
	}
	return json.RawMessage(data), nil
}

// readPrompt builds the prompt as Codex does: the argument, or stdin when
// there is none or it is "-"; with both an argument and piped stdin, stdin
// is appended as a <stdin> block. The SDK (--experimental-json) keeps
// stdin open for control messages, so there stdin is read only for "-" or
// a missing prompt.
func (f *execFlags) readPrompt(cmd *cobra.Command, args []string) (string, error) {
	prompt := joinPrompt(args)
	in := cmd.InOrStdin()
	piped := !isTerminal(in)
	if prompt == "" || prompt == "-" {
		if !piped {
			return "", errors.New("no prompt: pass it as an argument, or pipe it on stdin (PROMPT - reads stdin)")
		}
		b, err := io.ReadAll(in)
		if err != nil {
			return "", fmt.Errorf("read prompt from stdin: %w", err)
		}
		// Codex keeps the prompt as it came (its trailing newline too).
		if strings.TrimSpace(string(b)) == "" {
			return "", exitError{code: 1, msg: "No prompt provided via stdin."}
		}
		return string(b), nil
	}
	if piped && !f.experimentalJSON && stdinHasData(in) {
		b, err := io.ReadAll(in)
		if err != nil {
			return "", fmt.Errorf("read stdin: %w", err)
		}
		if s := strings.TrimRight(string(b), "\n"); strings.TrimSpace(s) != "" {
			prompt += "\n\n<stdin>\n" + s + "\n</stdin>"
		}
	}
	return prompt, nil
}

// isTerminal reports whether r is a terminal (stdin not redirected).
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// stdinHasData is false for /dev/null and other empty non-pipes: only a
// pipe, a file or a socket can carry a <stdin> block.
func stdinHasData(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return true // a reader a test or an embedder gave
	}
	st, err := f.Stat()
	if err != nil {
		return false
	}
	return st.Mode()&(os.ModeNamedPipe|os.ModeSocket) != 0 || (st.Mode().IsRegular() && st.Size() > 0)
}

// writeLastMessage writes -o's file without following a final symlink
// (Codex opens it O_NOFOLLOW): a link the agent made at that name — to
// ~/.bashrc, outside every root — is left alone with Codex's warning on
// stderr, and so is a FIFO or other non-regular file there.
func (f *execFlags) writeLastMessage(msg string, stderr io.Writer) error {
	if f.outputLastMsg == "" {
		return nil
	}
	err := writeNoFollow(f.outputLastMsg, msg)
	switch {
	case err == nil:
		if msg == "" {
			fmt.Fprintf(stderr, "Warning: no last agent message; wrote empty content to %s\n", f.outputLastMsg)
		}
		return nil
	case errors.Is(err, syscall.ELOOP), errors.Is(err, errNotRegular), errors.Is(err, syscall.ENXIO):
		fmt.Fprintf(stderr, "Failed to write last message file %q: %v\n", f.outputLastMsg, err)
		return nil
	}
	return fmt.Errorf("--output-last-message: %w", err)
}

var errNotRegular = errors.New("not a regular file")

// writeNoFollow creates or truncates path, refusing a symlink as its last
// component and never waiting on a FIFO.
func writeNoFollow(path, msg string) error {
	fd, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o644)
	if err != nil {
		return err
	}
	defer fd.Close()
	st, err := fd.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s: %w", path, errNotRegular)
	}
	if err := fd.Truncate(0); err != nil {
		return err
	}
	if _, err := fd.WriteString(msg); err != nil {
		return err
	}
	return fd.Close()
}

// turnMetadata reads --responsesapi-client-metadata (Codex's KEY=VALUE
// pairs for the x-codex-turn-metadata header).
func (f *execFlags) turnMetadata() (map[string]string, error) {
	if len(f.clientMetadata) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	for _, kv := range f.clientMetadata {
		k, v, ok := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("--responsesapi-client-metadata %q: expected KEY=VALUE", kv)
		}
		if k == "turn_id" {
			return nil, errors.New("--responsesapi-client-metadata: turn_id is set by grove")
		}
		if strings.ContainsAny(k+v, "\r\n\x00") {
			return nil, fmt.Errorf("--responsesapi-client-metadata %q: no line breaks or NUL", k)
		}
		out[k] = v
	}
	return out, nil
}

// execOriginator is the originator header of exec's model requests:
// Codex's codex_exec, or CODEX_INTERNAL_ORIGINATOR_OVERRIDE.
func execOriginator() string {
	if o := strings.TrimSpace(os.Getenv("CODEX_INTERNAL_ORIGINATOR_OVERRIDE")); o != "" && !strings.ContainsAny(o, "\r\n\x00") {
		return o
	}
	return "codex_exec"
}
