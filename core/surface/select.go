// Package surface chooses which delegation tool surface a thread sees.
// The surfaces themselves live in the sub-packages (collab: seed 000's
// spawn_agent/wait/…; task: seed 004's Task/TaskOutput); the engine only
// knows them by name.
package surface

import (
	"strings"

	"github.com/grovecli/grove/core/engine"
	"github.com/grovecli/grove/core/surface/collab"
)

// Surface names accepted by agents.surface and a template's `surface:`.
const (
	Collab = "collab"
	Task   = "task"
	Auto   = "auto"
)

// CollabFactory is the engine.SurfaceFactory of seed 000's collab surface.
func CollabFactory(e engine.Ops) (engine.Surface, error) { return collab.New(e), nil }

// ForModel is auto's choice: Claude models are trained on Task, the
// others on spawn_agent/wait.
func ForModel(model string) string {
	m := strings.ToLower(strings.TrimSpace(model))
	if strings.HasPrefix(m, "claude") || strings.HasPrefix(m, "anthropic/") {
		return Task
	}
	return Collab
}

// Selector returns the engine's SelectSurface for the configured
// agents.surface: a role template's `surface:` wins, then the setting;
// auto decides by the thread's model.
func Selector(configured string) func(engine.SurfaceQuery) string {
	return func(q engine.SurfaceQuery) string {
		choice := strings.ToLower(strings.TrimSpace(q.Template))
		if choice == "" {
			choice = strings.ToLower(strings.TrimSpace(configured))
		}
		switch choice {
		case "":
			return Collab
		case Auto:
			return ForModel(q.Model)
		}
		return choice
	}
}
