package config

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Profile is one `[agents.profiles.<name>]` table: a session type of the
// sessions surface (seed 003's create_session) with its own developer
// prompt, model and reasoning effort. Tools are inherited from the parent.
type Profile struct {
	// DeveloperInstructions is the child's role prompt.
	DeveloperInstructions string `toml:"developer_instructions"`
	// Model is the child's model ("" inherits the parent's).
	Model string `toml:"model"`
	// ReasoningEffort is the child's effort ("" inherits).
	ReasoningEffort string `toml:"reasoning_effort"`
	// Description says when to use it (shown in create_session's schema).
	Description string `toml:"description"`
}

var profileName = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,63}$`)

// checkProfiles validates the profiles table: names are lower-case
// identifiers and every profile has a developer prompt.
func (a *Agents) checkProfiles() error {
	names := make([]string, 0, len(a.Profiles))
	for n := range a.Profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := a.Profiles[n]
		if !profileName.MatchString(n) {
			return fmt.Errorf("agents.profiles.%s: a profile name is lower-case letters, digits, _ and - (starting with a letter)", n)
		}
		if strings.TrimSpace(p.DeveloperInstructions) == "" {
			return fmt.Errorf("agents.profiles.%s: developer_instructions is empty; say how this kind of session works", n)
		}
		switch strings.ToLower(strings.TrimSpace(p.ReasoningEffort)) {
		case "", "minimal", "low", "medium", "high", "xhigh":
		default:
			return fmt.Errorf("agents.profiles.%s: reasoning_effort %q: expected minimal, low, medium, high or xhigh", n, p.ReasoningEffort)
		}
	}
	return nil
}
