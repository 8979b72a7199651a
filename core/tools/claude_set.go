package tools

// Claude Code's tool names as grove offers them.
const (
	ClaudeBash       = "Bash"
	ClaudeTaskStop   = "TaskStop"
	ClaudeBashOutput = "BashOutput"
	ClaudeRead       = "Read"
	ClaudeWrite      = "Write"
	ClaudeEdit       = "Edit"
	ClaudeMultiEdit  = "MultiEdit"
	ClaudeGlob       = "Glob"
	ClaudeGrep       = "Grep"
	ClaudeTodoWrite  = "TodoWrite"
	// Earlier Claude Code names, answered but not offered (Unlisted).
	claudeKillShell = "KillShell"
	claudeLSName    = "LS"
)

// codexCore are the core tools of Codex's set (RegisterCore's).
var codexCore = []string{"exec_command", "apply_patch", "read_file", "list_dir", "grep_files", "update_plan"}

// claudeCore are the core tools of Claude's set, in the order offered.
var claudeCore = []string{ClaudeBash, ClaudeBashOutput, ClaudeTaskStop, ClaudeRead, ClaudeWrite, ClaudeEdit, ClaudeMultiEdit, ClaudeNotebookEdit, ClaudeGlob, ClaudeGrep, ClaudeTodoWrite, ClaudeAskUserQuestion, claudeKillShell, claudeLSName}

// equivalents maps each core tool to the other set's tools that do its
// work: a template's allow_list or deny_list written with either set's
// names keeps its meaning whichever set the agent gets (`read_file` allows
// Read, `Bash` denies exec_command).
var equivalents = map[string][]string{
	"exec_command":       {ClaudeBash, ClaudeBashOutput, ClaudeTaskStop},
	"write_stdin":        {ClaudeBashOutput},
	"apply_patch":        {ClaudeWrite, ClaudeEdit, ClaudeMultiEdit, ClaudeNotebookEdit},
	"write_file":         {ClaudeWrite},
	"read_file":          {ClaudeRead},
	"view_image":         {ClaudeRead},
	"list_dir":           {ClaudeGlob},
	"glob_files":         {ClaudeGlob},
	"grep_files":         {ClaudeGrep},
	"update_plan":        {ClaudeTodoWrite},
	ClaudeBash:           {"exec_command"},
	ClaudeBashOutput:     {"exec_command", "write_stdin"},
	ClaudeTaskStop:       {"exec_command"},
	ClaudeRead:           {"read_file"},
	ClaudeWrite:          {"apply_patch", "write_file"},
	ClaudeEdit:           {"apply_patch"},
	ClaudeMultiEdit:      {"apply_patch"},
	ClaudeNotebookEdit:   {"apply_patch"},
	ClaudeGlob:           {"list_dir", "glob_files"},
	ClaudeGrep:           {"grep_files"},
	ClaudeTodoWrite:      {"update_plan"},
	"request_user_input": {"AskUserQuestion"},
	"AskUserQuestion":    {"request_user_input"},
	claudeKillShell:      {ClaudeBash, "exec_command"},
	claudeLSName:         {"list_dir", ClaudeGlob},
}

// Equivalents returns the tools of the other set that do name's work
// (nil for a tool that is the same in both sets).
func Equivalents(name string) []string { return equivalents[name] }

// RegisterClaude registers Claude Code's core tools (one shared record of
// what each thread has Read): Bash with its background shells' BashOutput
// and TaskStop, Read, Write, Edit, MultiEdit, NotebookEdit, Glob, Grep,
// TodoWrite; and,
// unlisted, the earlier names KillShell and LS.
func RegisterClaude(r *Registry) error {
	reads := newReadState()
	ends := &shellEnds{}
	for _, t := range []Tool{
		newClaudeBash(reads),
		claudeBashOutput{ends: ends},
		claudeTaskStop{name: ClaudeTaskStop, ends: ends},
		claudeRead{reads: reads},
		claudeWrite{reads: reads},
		claudeEdit{reads: reads},
		claudeMultiEdit{reads: reads},
		claudeNotebookEdit{reads: reads},
		claudeGlob{},
		claudeGrep{},
		claudeTodoWrite{},
		claudeAsk{},
		unlisted{claudeTaskStop{name: claudeKillShell, ends: ends}},
		unlisted{claudeLS{}},
	} {
		if err := r.Register(t); err != nil {
			return err
		}
	}
	return nil
}

// unlisted wraps a tool that answers but is not offered.
type unlisted struct{ Tool }

func (unlisted) Unlisted() bool { return true }
