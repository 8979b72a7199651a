// Package collab is seed 000's delegation surface: spawn_agent,
// send_input, wait, resume_agent, close_agent, list_agents,
// list_active_agents and set_thread_note, the engine's own collaboration
// tools, offered as the surface named "collab".
package collab

import (
	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/core/tools"
)

// Name is the surface's name in agents.surface.
const Name = "collab"

type surface struct{ tools []tools.Tool }

func (s surface) Name() string        { return Name }
func (s surface) Tools() []tools.Tool { return s.tools }

// Instructions is the engine's prompt section for these tools.
func (s surface) Instructions() string { return engine.CollabInstructions }

// New is the engine.SurfaceFactory of the collab surface.
func New(e *engine.Engine) (engine.Surface, error) {
	return surface{tools: e.CollabTools()}, nil
}
