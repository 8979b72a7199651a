package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/tools/schema"
)

type writeStdin struct{}

// NewWriteStdin returns the write_stdin tool: input to, and output of, a
// session exec_command left running.
func NewWriteStdin() Tool { return writeStdin{} }

func (writeStdin) Spec() model.ToolSpec {
	return model.ToolSpec{Name: "write_stdin", Description: "Writes characters to an existing unified exec session and returns recent output.\n\nEmpty chars polls (waiting at least 5 s for new output unless the process ends). \"\\u0003\" interrupts the process (SIGINT, as Ctrl+C); on a tty session \"\\u0004\" ends its input (Ctrl+D). A session started without tty takes no other input.", Parameters: schema.MustObject(writeStdinArgs{})}
}

// writeStdinArgs are Codex's (create_write_stdin_tool).
type writeStdinArgs struct {
	SessionID       float64  `json:"session_id" required:"true" jsonschema:"Identifier of the running unified exec session."`
	Chars           string   `json:"chars" jsonschema:"Bytes to write to stdin (may be empty to poll)."`
	YieldTimeMS     *float64 `json:"yield_time_ms" minimum:"0" jsonschema:"How long to wait (in milliseconds) for output before yielding."`
	MaxOutputTokens *float64 `json:"max_output_tokens" minimum:"0" jsonschema:"Maximum number of tokens to return. Excess output will be truncated."`
}

// ctrlC is the byte Ctrl+C types.
const ctrlC = "\x03"

// Run writes to the caller's session and collects its output: a write
// waits yield_time_ms (default 250 ms, clamped 250 ms..30 s), an empty
// poll at least 5 s (up to 300 s), both less when the process ends.
func (writeStdin) Run(ctx context.Context, env *Env, raw json.RawMessage) Result {
	var a writeStdinArgs
	if err := decode("write_stdin", raw, &a); err != nil {
		return Errorf("%v", err)
	}
	id := int(a.SessionID)
	if float64(id) != a.SessionID {
		return Errorf("write_stdin failed: session_id %v is not a session id (an integer from exec_command's answer)", a.SessionID)
	}
	s, err := env.SessionsFor().Lookup(env.ThreadID, id)
	if err != nil {
		return Errorf("write_stdin failed: %v", err)
	}
	start := time.Now()
	if err := deliver(s, a.Chars); err != nil {
		return Errorf("write_stdin failed: %v", err)
	}
	yield := stdinYield(a)
	return readSession(ctx, env, s, start, yield, tokens(a.MaxOutputTokens), s.command)
}

// deliver hands the chars to the session: nothing for a poll, SIGINT for
// a lone Ctrl+C on a session without a terminal, the terminal otherwise.
func deliver(s *Session, chars string) error {
	switch {
	case chars == "" || s.hasExited():
		// An ended process takes no input: the read reports its end.
		return nil
	case !s.tty && chars == ctrlC:
		return s.Interrupt()
	case !s.tty:
		return fmt.Errorf("stdin is closed for this session; rerun exec_command with tty=true to keep stdin open")
	}
	if err := s.WriteInput([]byte(chars)); err != nil {
		return err
	}
	return nil
}

// stdinYield clamps the wait as Codex does: an empty poll waits 5 s..300 s
// (background polling may wait long), a write 250 ms..30 s.
func stdinYield(a writeStdinArgs) time.Duration {
	ms := float64(defaultWriteYield.Milliseconds())
	if a.YieldTimeMS != nil {
		ms = *a.YieldTimeMS
	}
	if a.Chars == "" {
		return clampMS(ms, minEmptyPollYield, maxEmptyPollYield)
	}
	return clampMS(ms, minYield, maxYield)
}
