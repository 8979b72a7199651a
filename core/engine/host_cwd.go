package engine

// An agent whose tools run on a [hosts.<name>] machine works in the
// host's directory, not this machine's: its `pwd` prints the workspace
// there. Front ends show that directory (ThreadInfo.HostCwd) so the status
// line does not say "box:" and then a local path (issue 35 item 13).

// hostWorkspace is the workspace of host, "" when it has none or is not
// configured (opening a host only looks it up; nothing is dialled).
func (e *Engine) hostWorkspace(host string) string {
	if host == "" {
		return ""
	}
	if _, ws, err := e.hostBackend(host); err == nil {
		return ws
	}
	return ""
}

// hostCwd is where the thread's commands run on its host ("" for a thread
// on this machine); the thread's lock is held.
func (t *Thread) hostCwd() string {
	if t.host == "" || t.hostWS == "" {
		return ""
	}
	return hostPath(t.e.opts.Cwd, t.hostWS, t.cwd)
}
