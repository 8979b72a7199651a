package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHostsValidation(t *testing.T) {
	for _, tc := range []struct{ toml, want string }{
		{"[hosts.box]\nworkspace = \"/srv/w\"\n", "hosts.box.ssh: missing"},
		{"[hosts.box]\nssh = \"-oProxyCommand=x\"\nworkspace = \"/srv/w\"\n", "cannot start with '-'"},
		{"[hosts.box]\nssh = \"box\"\n", "hosts.box.workspace: missing"},
		{"[hosts.box]\nssh = \"box\"\nworkspace = \"srv/w\"\n", "must be an absolute path on the host"},
		{"[hosts.box]\nssh = \"box\"\nworkspace = \"/srv/w\"\ngrove_path = \"/opt/grove\"\nssh_args = [\"-p\", \"2222\"]\n", ""},
	} {
		home := t.TempDir()
		if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(tc.toml), 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := Load(home, nil)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v", tc.toml, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: error %v, want %q", tc.toml, err, tc.want)
		case tc.want == "":
			h, err := c.LookupHost("box")
			if err != nil || h.GrovePath != "/opt/grove" || len(h.SSHArgs) != 2 || len(c.Warnings) != 0 {
				t.Errorf("host %+v, %v, warnings %q", h, err, c.Warnings)
			}
			if _, err := c.LookupHost("nope"); err == nil || !strings.Contains(err.Error(), `host "nope" is not configured (configured: box)`) {
				t.Errorf("unknown host: %v", err)
			}
		}
	}
}
