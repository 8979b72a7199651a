package tools

import (
	"strings"
	"testing"
)

// TestClaudeBashLimitsFromEnv: Claude Code's tools reference, "Bash tool
// behavior": "Timeout: two minutes by default. Claude can request up to 10
// minutes per command with the timeout parameter. Override the default and
// ceiling with BASH_DEFAULT_TIMEOUT_MS and BASH_MAX_TIMEOUT_MS." and
// "Output length: 30,000 characters by default … Raise the limit with
// BASH_MAX_OUTPUT_LENGTH, up to a hard ceiling of 150,000 characters."
// The description and the timeout parameter state the limits in force.
func TestClaudeBashLimitsFromEnv(t *testing.T) {
	for _, v := range []string{"BASH_DEFAULT_TIMEOUT_MS", "BASH_MAX_TIMEOUT_MS", "BASH_MAX_OUTPUT_LENGTH"} {
		t.Setenv(v, "")
	}
	spec := func() string {
		s := (&claudeBash{}).Spec()
		return s.Description + "\n" + string(s.Parameters)
	}
	for _, want := range []string{"up to 600000ms / 10 minutes", "after 120000ms (2 minutes)", "exceeds 30000 characters", "(max 600000)"} {
		if !strings.Contains(spec(), want) {
			t.Errorf("the default spec lacks %q", want)
		}
	}
	// Not positive numbers: the defaults stay.
	for _, v := range []string{"abc", "-5", "0", "1.5"} {
		t.Setenv("BASH_DEFAULT_TIMEOUT_MS", v)
		t.Setenv("BASH_MAX_OUTPUT_LENGTH", v)
		if l := claudeBashLimits(); l != (bashLimits{claudeBashDefault, claudeBashMax, claudeBashMaxOutput}) {
			t.Errorf("%q: limits %+v", v, l)
		}
	}
	t.Setenv("BASH_DEFAULT_TIMEOUT_MS", "300")
	t.Setenv("BASH_MAX_TIMEOUT_MS", "500")
	t.Setenv("BASH_MAX_OUTPUT_LENGTH", "20")
	for _, want := range []string{"up to 500ms / ", "after 300ms (0.005 minutes)", "exceeds 20 characters", "(max 500)"} {
		if !strings.Contains(spec(), want) {
			t.Errorf("the spec under the variables lacks %q:\n%s", want, spec())
		}
	}
	r, env := claudeRegistry(t), testEnv(t)
	if out := run(t, r, env, ClaudeBash, map[string]any{"command": "sleep 5"}).Output; out != "Command timed out after 0.3s" {
		t.Errorf("the default timeout: %q", out)
	}
	if out := run(t, r, env, ClaudeBash, map[string]any{"command": "sleep 5", "timeout": 100000}).Output; out != "Command timed out after 0.5s" {
		t.Errorf("a timeout over the ceiling: %q", out)
	}
	out := run(t, r, env, ClaudeBash, map[string]any{"command": "seq 1 100"}).Output
	if !strings.HasPrefix(out, "1\n2\n3\n") || !strings.HasSuffix(out, " lines truncated] ...") || len(out) > 60 {
		t.Errorf("output over 20 characters: %q", out)
	}
	// A ceiling below the default is raised to it; the output limit stops
	// at 150,000.
	t.Setenv("BASH_MAX_TIMEOUT_MS", "100")
	t.Setenv("BASH_MAX_OUTPUT_LENGTH", "900000")
	if l := claudeBashLimits(); l.maxTimeout != l.defaultTimeout || l.maxOutput != claudeBashOutputCeiling {
		t.Errorf("limits %+v", l)
	}
}
