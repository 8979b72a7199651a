package engine

import (
	"context"
	"errors"
	"testing"

	"github.com/grovecli/grove/core/execenv"
)

// A thread whose tools run on a host reports the host's directory (its
// pwd there), so the TUI's status line says box:/srv/work, not box: and a
// path of this machine (issue 35 item 13); a local thread reports none.
func TestHostThreadReportsItsHostDirectory(t *testing.T) {
	never := func(context.Context) (execenv.Transport, error) { return nil, errors.New("no host in this test") }
	env := newEnv(t, script{}, func(o *Options) {
		o.Exec, o.HostName, o.Workspace = execenv.NewRemote("box", never), "box", "/srv/work"
	})
	ti := env.e.thread(env.root).info()
	if ti.Host != "box" || ti.HostCwd != "/srv/work" || ti.Cwd != env.cwd {
		t.Fatalf("host %q host cwd %q cwd %q", ti.Host, ti.HostCwd, ti.Cwd)
	}
	local := newEnv(t, script{}, nil)
	if ti := local.e.thread(local.root).info(); ti.HostCwd != "" {
		t.Fatalf("a local thread has host cwd %q", ti.HostCwd)
	}
}
