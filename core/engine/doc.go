// Package engine runs grove's agent threads: one turn-loop goroutine per
// thread, the event bus, ops, approvals routing, and the agent control that
// spawns, waits on, resumes and closes sub-agents. It knows nothing about
// terminals; the TUI and `grove exec` consume its events.
//
// Delegation tool surfaces (core/surface/*) sit on its public primitives —
// SpawnChild, ContinueChild, WaitFinal, Interrupt, Report, Info, History,
// and the agent operations Spawn, Send, WaitAgents, ResumeAgent, CloseAgent,
// SetNote, ListActive — and are known to it only by the names they register
// (Options.Surfaces); each thread sees the tools of its own surface. The
// engine registers and names no delegation tool itself.
package engine
