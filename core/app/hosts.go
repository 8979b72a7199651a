package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/grovecli/grove/core/config"
	"github.com/grovecli/grove/core/execenv"
	"github.com/grovecli/grove/core/logging"
	"github.com/grovecli/grove/rollout"
)

// hostConnectTimeout bounds the check of a --host before the first model
// call (ssh's own ConnectTimeout is 15 s).
const hostConnectTimeout = 30 * time.Second

// SSHHost turns a [hosts.<name>] table into the transport's settings.
func SSHHost(name string, h config.Host) execenv.SSHHost {
	return execenv.SSHHost{Name: name, Dest: h.SSH, Workspace: h.Workspace, GrovePath: h.GrovePath, Args: h.SSHArgs}
}

// hostSet holds one connection per configured host a session uses: the
// --host one, and those templates name (connected on their first call).
type hostSet struct {
	cfg *config.Config
	mu  sync.Mutex
	m   map[string]*execenv.Remote
}

func newHostSet(cfg *config.Config) *hostSet {
	return &hostSet{cfg: cfg, m: map[string]*execenv.Remote{}}
}

// add registers the connected session host.
func (s *hostSet) add(name string, r *execenv.Remote) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[name] = r
}

// open is the engine's OpenHost.
func (s *hostSet) open(name string) (execenv.Backend, string, error) {
	h, err := s.cfg.LookupHost(name)
	if err != nil {
		return nil, "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.m[name]
	if r == nil {
		r = execenv.NewRemote(name, execenv.DialSSH(SSHHost(name, h)))
		s.m[name] = r
	}
	return r, h.Workspace, nil
}

// close drops every connection and releases its ssh ControlMaster; the
// hosts' exec-servers kill what they started.
func (s *hostSet) close() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for name, r := range s.m {
		_ = r.Close()
		delete(s.m, name)
		// The master ssh started for it exits with its last session
		// instead of lingering (ControlPersist).
		if h, err := s.cfg.LookupHost(name); err == nil {
			if err := execenv.ReleaseSSH(SSHHost(name, h)); err != nil {
				logging.L().Warn("session: release ssh master", "host", name, "err", err)
			}
		}
	}
}

// sessionHost is the host a session runs its tools on: --host, else the
// one a resumed session was recorded with, else none.
func sessionHost(cfg *config.Config, flag, resume string) string {
	if flag != "" || resume == "" {
		return flag
	}
	entry, err := rollout.FindSession(cfg.Home, resume)
	if err != nil {
		return "" // ResumeSession reports it with its own words
	}
	sess, err := rollout.Read(entry.RolloutPath)
	if err != nil {
		return ""
	}
	return sess.Meta.Host
}

// connectHost opens the connection to a configured host and checks its
// exec-server, before any model call: an error names the host and what ssh
// said.
func connectHost(ctx context.Context, cfg *config.Config, name string) (*execenv.Remote, config.Host, error) {
	h, err := cfg.LookupHost(name)
	if err != nil {
		return nil, h, fmt.Errorf("--host %s: %w", name, err)
	}
	if err := execenv.CheckSSH(); err != nil {
		return nil, h, fmt.Errorf("host %s: %w", name, err)
	}
	r := execenv.NewRemote(name, execenv.DialSSH(SSHHost(name, h)))
	cctx, cancel := context.WithTimeout(ctx, hostConnectTimeout)
	defer cancel()
	if _, err := r.Connect(cctx); err != nil {
		_ = r.Close()
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, h, fmt.Errorf("host %s: no answer from %s exec-server within %s (check grove_path, and that the login shell of the host's account starts without waiting)", name, cmp.Or(h.GrovePath, "grove"), hostConnectTimeout)
		}
		return nil, h, fmt.Errorf("cannot reach %w", err)
	}
	return r, h, nil
}
