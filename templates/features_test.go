package templates

import (
	"slices"
	"strings"
	"testing"
)

// Seed 004 §3.1.1: executionMode is lightweight or full_codex, and
// disabledFeatures names Codex features; anything else is a problem naming
// the file and the field, not a definition that loads and ignores it.
func TestExecutionModeAndDisabledFeaturesAreChecked(t *testing.T) {
	dir := writeAgents(t, map[string]string{
		"turbo.yaml":   "agentType: turbo\nexecutionMode: turbo\n",
		"typo.yaml":    "agentType: typo\ndisabledFeatures: [Shelltool]\n",
		"full.yaml":    "agentType: full\nexecutionMode: full_codex\ndisabledFeatures: [WebSearchRequest, ViewImageTool]\n",
		"noshell.yaml": "agentType: noshell\ndisabledFeatures: [shell_tool]\n",
		"hooks.yaml":   "agentType: hooks\ndisabledFeatures: [CodexHooks]\napprovalMode: route_to_parent\n",
	})
	cat := Load(Dirs{Cwd: dir}, Options{})
	problems := map[string]string{}
	for _, p := range cat.Problems() {
		problems[p.Path[strings.LastIndex(p.Path, "/")+1:]] = p.Err
	}
	if !strings.Contains(problems["turbo.yaml"], `executionMode "turbo": expected lightweight or full_codex`) {
		t.Errorf("turbo: %q", problems["turbo.yaml"])
	}
	if !strings.Contains(problems["typo.yaml"], `disabledFeatures: unknown feature "Shelltool"`) {
		t.Errorf("typo: %q", problems["typo.yaml"])
	}
	full, err := cat.Lookup("full")
	if err != nil || full.Task.ExecutionMode != ExecutionFullCodex || len(full.DenyList) != 0 || len(full.Warnings) != 0 {
		t.Errorf("full: %v %+v", err, full)
	}
	noshell, err := cat.Lookup("noshell")
	if err != nil || !slices.Contains(noshell.DenyList, "exec_command") {
		t.Errorf("noshell: %v deny %v", err, noshell.DenyList)
	}
	hooks, err := cat.Lookup("hooks")
	if err != nil || len(hooks.Warnings) != 2 || !strings.Contains(hooks.Warnings[0], "disabledFeatures CodexHooks: grove's hooks run for every agent") || !strings.Contains(hooks.Warnings[1], "approvalMode route_to_parent applies in executionMode full_codex") {
		t.Errorf("hooks: %v warnings %q", err, hooks.Warnings)
	}
}
