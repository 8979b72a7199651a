package protocol

// ApprovalPolicy says when the user is asked before a tool runs (Codex names).
type ApprovalPolicy string

const (
	ApprovalUntrusted ApprovalPolicy = "untrusted"
	ApprovalOnRequest ApprovalPolicy = "on-request"
	ApprovalOnFailure ApprovalPolicy = "on-failure"
	ApprovalNever     ApprovalPolicy = "never"
)

// Valid reports whether p is one of the known policies.
func (p ApprovalPolicy) Valid() bool {
	switch p {
	case ApprovalUntrusted, ApprovalOnRequest, ApprovalOnFailure, ApprovalNever:
		return true
	}
	return false
}

// SandboxMode says what commands and patches may touch (Codex names).
type SandboxMode string

const (
	SandboxReadOnly         SandboxMode = "read-only"
	SandboxWorkspaceWrite   SandboxMode = "workspace-write"
	SandboxDangerFullAccess SandboxMode = "danger-full-access"
)

// Valid reports whether m is one of the known modes.
func (m SandboxMode) Valid() bool {
	switch m {
	case SandboxReadOnly, SandboxWorkspaceWrite, SandboxDangerFullAccess:
		return true
	}
	return false
}

// SandboxPolicy is the effective sandbox of one thread.
type SandboxPolicy struct {
	Mode SandboxMode `json:"mode"`
	// WritableRoots are extra directories writable under workspace-write
	// (the thread's cwd is always writable there; /tmp and $TMPDIR unless
	// excluded below).
	WritableRoots []string `json:"writable_roots,omitempty"`
	// NetworkAccess allows network from commands under workspace-write.
	NetworkAccess bool `json:"network_access,omitempty"`
	// ExcludeTmpdirEnvVar leaves $TMPDIR out of the workspace-write roots,
	// ExcludeSlashTmp leaves /tmp out (Codex's
	// sandbox_workspace_write.exclude_tmpdir_env_var / exclude_slash_tmp).
	ExcludeTmpdirEnvVar bool `json:"exclude_tmpdir_env_var,omitempty"`
	ExcludeSlashTmp     bool `json:"exclude_slash_tmp,omitempty"`
}
