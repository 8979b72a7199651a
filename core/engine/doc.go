// Package engine runs grove's agent threads: one turn-loop goroutine per
// thread, the event bus, ops, approvals routing, and the agent control that
// spawns, waits on, resumes and closes sub-agents. It knows nothing about
// terminals; the TUI and `grove exec` consume its events.
package engine
