package config

import (
	"fmt"
	"path"
	"strings"
)

// Host is one `[hosts.<name>]` table: a machine the tools of a session (or
// of the sub-agents of a template naming it) run on, through the system
// ssh client and the host's `grove exec-server`.
type Host struct {
	// SSH is an OpenSSH destination: a Host alias, user@host, or
	// ssh://user@host:port.
	SSH string `toml:"ssh"`
	// Workspace is the directory on the host that stands for the
	// session's cwd (absolute).
	Workspace string `toml:"workspace"`
	// GrovePath is grove on the host; default: grove on its PATH.
	GrovePath string `toml:"grove_path"`
	// SSHArgs are extra arguments for ssh (e.g. ["-i", "~/.ssh/box"]).
	SSHArgs []string `toml:"ssh_args"`
}

// validateHosts checks every host table; a broken one is an error naming
// it (a session must never quietly run locally instead).
func (c *Config) validateHosts() error {
	for name, h := range c.Hosts {
		key := "hosts." + name
		switch {
		case strings.TrimSpace(h.SSH) == "":
			return fmt.Errorf("%s.ssh: missing (an OpenSSH destination: a Host alias, user@host or ssh://user@host:port)", key)
		case strings.HasPrefix(h.SSH, "-"):
			return fmt.Errorf("%s.ssh %q: a destination cannot start with '-'", key, h.SSH)
		case h.Workspace == "":
			return fmt.Errorf("%s.workspace: missing (the directory on the host that stands for the session's cwd)", key)
		case !path.IsAbs(h.Workspace):
			return fmt.Errorf("%s.workspace %q: must be an absolute path on the host", key, h.Workspace)
		}
	}
	return nil
}

// LookupHost returns the host called name, or an error naming what is
// configured.
func (c *Config) LookupHost(name string) (Host, error) {
	h, ok := c.Hosts[name]
	if !ok {
		names := make([]string, 0, len(c.Hosts))
		for n := range c.Hosts {
			names = append(names, n)
		}
		if len(names) == 0 {
			return Host{}, fmt.Errorf("host %q is not configured: add a [hosts.%s] table (ssh, workspace) to config.toml", name, name)
		}
		return Host{}, fmt.Errorf("host %q is not configured (configured: %s)", name, strings.Join(names, ", "))
	}
	return h, nil
}
