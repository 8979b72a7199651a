package tools

// Alone is implemented by tools whose calls must not overlap the other
// calls of one model reply: Codex's supports_parallel_tool_calls = false
// (codex-rs/core/src/tools/parallel.rs takes a write lock for such a
// call, a read lock for the others). An MCP server's tools run alone
// unless the server sets supports_parallel_tool_calls; grove's own tools
// run at the same time as the reply's other calls.
type Alone interface {
	RunsAlone() bool
}

// RunsAlone reports whether a call of name, along route, must run alone
// among the calls of its reply.
func (r *Registry) RunsAlone(name string, route Route) bool {
	t, ok := r.routed(name, route)
	a, isAlone := t.(Alone)
	return ok && isAlone && a.RunsAlone()
}
