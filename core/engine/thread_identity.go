package engine

import (
	"time"

	"github.com/grovecli/grove/protocol"
)

// threadIdentity is who a thread is: fixed when it is created, so it is
// read without a lock (embedded in Thread: t.id, t.agentType…).
type threadIdentity struct {
	id          protocol.ThreadID
	parentID    protocol.ThreadID
	depth       int
	source      protocol.ThreadSource
	agentType   string
	agentName   string
	nickname    string // the sub-agent's short unique name (nickname.go)
	description string
	spawnCallID string
	createdAt   time.Time
	host        string // [hosts.<name>] of its tools ("" = this machine)
	hostWS      string // that host's workspace (host_cwd.go)
	allow, deny []string
	// surface names the delegation tools this thread sees (see Surface).
	surface string
	// forkedFrom is the session a fork copied.
	forkedFrom protocol.ThreadID
}

func (id *threadIdentity) label() string {
	return protocol.ThreadInfo{ID: id.id, ParentID: id.parentID, AgentType: id.agentType, AgentName: id.agentName}.Label()
}

// role is the agent_type for messages ("default" when none).
func (id *threadIdentity) role() string {
	if id.agentType == "" {
		return "default"
	}
	return id.agentType
}
