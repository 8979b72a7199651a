package engine

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/grovecli/grove/rollout"
)

// collectGitInfo is the commit, branch and origin URL of the checkout
// holding dir (nil outside one), recorded in a root session's metadata as
// Codex records it (codex-rs git_info collect_git_info). git runs with a
// short deadline and with nothing a repository's config could make it
// execute (no fsmonitor, no optional locks): the checkout may be untrusted.
func collectGitInfo(dir string) *rollout.GitInfo {
	if dir == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	git := func(args ...string) string {
		cmd := exec.CommandContext(ctx, "git", append([]string{"-c", "core.fsmonitor=false", "-c", "core.untrackedCache=false"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0")
		out, err := cmd.Output()
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(out))
	}
	if git("rev-parse", "--is-inside-work-tree") != "true" {
		return nil
	}
	info := &rollout.GitInfo{CommitHash: git("rev-parse", "HEAD"), RepositoryURL: git("remote", "get-url", "origin")}
	if b := git("rev-parse", "--abbrev-ref", "HEAD"); b != "HEAD" {
		info.Branch = b
	}
	return info
}
