package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/tools/schema"
	"github.com/grovecli/grove/protocol"
)

// Background shells of Claude's Bash (run_in_background) are sessions of
// the same engine as exec_command's (SessionManager): owned by the agent
// that started them, killed with it. Their ids are bash_<session id>.

// shellID names a session the way Claude Code names a background shell.
func shellID(id int) string { return "bash_" + strconv.Itoa(id) }

// parseShellID reads bash_N (or N) back.
func parseShellID(s string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(s), "bash_"))
	return n, err == nil && n > 0
}

// startBackground starts a Bash command as a session and answers with
// its id at once.
func startBackground(env *Env, command, dir string) Result {
	s, err := StartShellSession(env, ShellSessionRequest{Command: command, Dir: dir, Login: !env.NoLoginShell})
	if err != nil {
		return Errorf("Bash: %v", err)
	}
	id := shellID(s.ID())
	return Result{Output: fmt.Sprintf("Command running in background with ID: %s", id), Summary: fmt.Sprintf("`%s` in the background (%s)", clipCmd(command), id)}
}

// shellEnds remembers how a thread's background shells ended once their
// last output was read, so that reading again says so instead of "no
// such shell".
type shellEnds struct {
	mu   sync.Mutex
	ends map[protocol.ThreadID]map[int]string // status line
}

func (e *shellEnds) set(owner protocol.ThreadID, id int, status string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.ends == nil {
		e.ends = map[protocol.ThreadID]map[int]string{}
	}
	if e.ends[owner] == nil {
		e.ends[owner] = map[int]string{}
	}
	e.ends[owner][id] = status
}

func (e *shellEnds) get(owner protocol.ThreadID, id int) (string, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	s, ok := e.ends[owner][id]
	return s, ok
}

type claudeBashOutput struct{ ends *shellEnds }

type claudeBashOutputArgs struct {
	BashID string `json:"bash_id" required:"true" jsonschema:"The ID of the background shell to retrieve output from"`
	Filter string `json:"filter" jsonschema:"Optional regular expression to filter the output lines. Only lines matching this regex will be included in the result. Any lines that do not match will no longer be available to read."`
}

const claudeBashOutputDesc = `- Retrieves output from a running or completed background bash shell
- Takes a bash_id parameter identifying the shell
- Always returns only new output since the last check
- Returns stdout and stderr output along with shell status
- Supports optional regex filtering to show only lines matching a pattern
- Use this tool when you need to monitor or check the output of a long-running shell`

func (claudeBashOutput) Spec() model.ToolSpec {
	return model.ToolSpec{Name: ClaudeBashOutput, Description: claudeBashOutputDesc, Parameters: schema.MustObject(claudeBashOutputArgs{})}
}

func (t claudeBashOutput) Run(ctx context.Context, env *Env, raw json.RawMessage) Result {
	var a claudeBashOutputArgs
	if err := decode(ClaudeBashOutput, raw, &a); err != nil {
		return Errorf("%v", err)
	}
	var filter *regexp.Regexp
	if a.Filter != "" {
		re, err := regexp.Compile(a.Filter)
		if err != nil {
			return Errorf("BashOutput: invalid filter %q: %v", a.Filter, err)
		}
		filter = re
	}
	id, ok := parseShellID(a.BashID)
	if !ok {
		return Errorf("No shell found with ID: %s", a.BashID)
	}
	s, err := env.SessionsFor().Lookup(env.ThreadID, id)
	if err != nil {
		if status, ended := t.ends.get(env.ThreadID, id); ended {
			return Result{Output: status + "\n\n" + claudeTimestamp()}
		}
		return Errorf("No shell found with ID: %s", a.BashID)
	}
	c := s.Read(ctx, time.Now(), nil) // what is there, without waiting
	status := "<status>running</status>"
	if c.Exited {
		state := "completed"
		if c.ExitCode != 0 {
			state = "failed"
		}
		status = fmt.Sprintf("<status>%s</status>\n\n<exit_code>%d</exit_code>", state, c.ExitCode)
		t.ends.set(env.ThreadID, id, status)
	}
	return Result{Output: shellReport(status, string(c.Output), c.Omitted, filter), Summary: "output of " + shellID(id)}
}

// shellReport is BashOutput's answer: status, new output, timestamp.
func shellReport(status, output string, omitted int, filter *regexp.Regexp) string {
	var b strings.Builder
	b.WriteString(status)
	if filter != nil {
		var kept []string
		for _, l := range strings.Split(output, "\n") {
			if filter.MatchString(l) {
				kept = append(kept, l)
			}
		}
		output = strings.Join(kept, "\n")
	}
	output = strings.TrimRight(output, "\n")
	if omitted > 0 {
		output = fmt.Sprintf("[… %d bytes of output were dropped: more arrived than is kept between reads …]\n%s", omitted, output)
	}
	if output != "" {
		b.WriteString("\n\n<stdout>\n" + clipOutput(output, claudeBashMaxOutput) + "\n</stdout>")
	}
	b.WriteString("\n\n" + claudeTimestamp())
	return b.String()
}

func claudeTimestamp() string {
	return "<timestamp>" + time.Now().UTC().Format("2006-01-02T15:04:05.000Z") + "</timestamp>"
}

type claudeTaskStop struct {
	name string // TaskStop, or the legacy KillShell
	ends *shellEnds
}

type claudeTaskStopArgs struct {
	TaskID  string `json:"task_id" jsonschema:"The ID of the background task to stop"`
	ShellID string `json:"shell_id" jsonschema:"Deprecated: use task_id instead"`
}

func (t claudeTaskStop) Spec() model.ToolSpec {
	return model.ToolSpec{Name: t.name, Description: "\n- Stops a running background task by its ID\n- Takes a task_id parameter identifying the task to stop\n- Returns a success or failure status\n- Use this tool when you need to terminate a long-running task\n", Parameters: schema.MustObject(claudeTaskStopArgs{})}
}

func (t claudeTaskStop) Run(_ context.Context, env *Env, raw json.RawMessage) Result {
	var a claudeTaskStopArgs
	if err := decode(t.name, raw, &a); err != nil {
		return Errorf("%v", err)
	}
	given := firstNonEmpty(a.TaskID, a.ShellID)
	if given == "" {
		return Errorf(`invalid arguments for %s: give task_id, the ID Bash returned`, t.name)
	}
	id, ok := parseShellID(given)
	if !ok {
		return Errorf("No task found with ID: %s", given)
	}
	mgr := env.SessionsFor()
	s, err := mgr.Lookup(env.ThreadID, id)
	if err != nil {
		if _, ended := t.ends.get(env.ThreadID, id); ended {
			return Errorf("Task %s is not running (status: completed)", shellID(id))
		}
		return Errorf("No task found with ID: %s", given)
	}
	command := s.Info().Command
	if err := mgr.Kill(env.ThreadID, id); err != nil {
		return Errorf("Task %s is not running", shellID(id))
	}
	t.ends.set(env.ThreadID, id, "<status>killed</status>")
	if t.name == claudeKillShell {
		return Result{Output: fmt.Sprintf("Successfully killed shell: %s (%s)", shellID(id), command), Summary: "stopped " + shellID(id)}
	}
	out, _ := json.Marshal(map[string]string{"message": fmt.Sprintf("Successfully stopped task: %s (%s)", shellID(id), command), "task_id": shellID(id), "task_type": "local_bash", "command": command})
	return Result{Output: string(out), Summary: "stopped " + shellID(id)}
}
