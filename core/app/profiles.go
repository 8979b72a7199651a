package app

import (
	"github.com/grovecli/grove/core/config"
	"github.com/grovecli/grove/core/surface/sessions"
)

// sessionProfiles turns [agents.profiles.<name>] into the sessions
// surface's session types.
func sessionProfiles(in map[string]config.Profile) map[string]sessions.Profile {
	out := make(map[string]sessions.Profile, len(in))
	for name, p := range in {
		out[name] = sessions.Profile{Instructions: p.DeveloperInstructions, Model: p.Model, Effort: p.ReasoningEffort, Description: p.Description}
	}
	return out
}
