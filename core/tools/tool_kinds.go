package tools

import "github.com/grovecli/grove/protocol"

// Each handler says what kind of tool it is (Kinded): the kind the
// orchestrator puts on the call's events, which front ends switch on.

func (*execCommand) Kind() protocol.ToolKind       { return protocol.ToolKindExec }
func (*claudeBash) Kind() protocol.ToolKind        { return protocol.ToolKindExec }
func (writeStdin) Kind() protocol.ToolKind         { return protocol.ToolKindSession }
func (claudeBashOutput) Kind() protocol.ToolKind   { return protocol.ToolKindSession }
func (claudeTaskStop) Kind() protocol.ToolKind     { return protocol.ToolKindSession }
func (applyPatch) Kind() protocol.ToolKind         { return protocol.ToolKindPatch }
func (claudeWrite) Kind() protocol.ToolKind        { return protocol.ToolKindPatch }
func (claudeEdit) Kind() protocol.ToolKind         { return protocol.ToolKindPatch }
func (claudeMultiEdit) Kind() protocol.ToolKind    { return protocol.ToolKindPatch }
func (claudeNotebookEdit) Kind() protocol.ToolKind { return protocol.ToolKindPatch }
func (readFile) Kind() protocol.ToolKind           { return protocol.ToolKindRead }
func (claudeRead) Kind() protocol.ToolKind         { return protocol.ToolKindRead }
func (listDir) Kind() protocol.ToolKind            { return protocol.ToolKindList }
func (claudeLS) Kind() protocol.ToolKind           { return protocol.ToolKindList }
func (grepFiles) Kind() protocol.ToolKind          { return protocol.ToolKindSearch }
func (claudeGrep) Kind() protocol.ToolKind         { return protocol.ToolKindSearch }
func (claudeGlob) Kind() protocol.ToolKind         { return protocol.ToolKindSearch }
func (updatePlan) Kind() protocol.ToolKind         { return protocol.ToolKindPlan }
func (claudeTodoWrite) Kind() protocol.ToolKind    { return protocol.ToolKindPlan }
func (viewImage) Kind() protocol.ToolKind          { return protocol.ToolKindImage }
func (requestUserInput) Kind() protocol.ToolKind   { return protocol.ToolKindQuestion }
func (claudeAsk) Kind() protocol.ToolKind          { return protocol.ToolKindQuestion }

// Kind is the wrapped tool's: an unlisted old name does the same work.
func (u unlisted) Kind() protocol.ToolKind { return kindOf(u.Tool) }
