package tools

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Claude Code's tools reference, "Bash tool behavior": "Timeout: two
// minutes by default. Claude can request up to 10 minutes per command with
// the timeout parameter. Override the default and ceiling with
// BASH_DEFAULT_TIMEOUT_MS and BASH_MAX_TIMEOUT_MS." "Output length: 30,000
// characters by default … Raise the limit with BASH_MAX_OUTPUT_LENGTH, up
// to a hard ceiling of 150,000 characters." grove reads the three
// variables from its own environment, as it reads Glob's.
const claudeBashOutputCeiling = 150000

// bashLimits are one call's Bash limits.
type bashLimits struct {
	defaultTimeout, maxTimeout time.Duration
	maxOutput                  int
}

// positiveEnv is a variable's value as a positive whole number, 0 when it
// is unset or not one.
func positiveEnv(name string) int64 {
	n, err := strconv.ParseInt(strings.TrimSpace(os.Getenv(name)), 10, 64)
	if err != nil || n <= 0 {
		return 0
	}
	return n
}

// claudeBashLimits reads the limits: a variable that is not a positive
// number keeps Claude Code's default; the ceiling is never below the
// default timeout, the output limit never above 150,000.
func claudeBashLimits() bashLimits {
	l := bashLimits{defaultTimeout: claudeBashDefault, maxTimeout: claudeBashMax, maxOutput: claudeBashMaxOutput}
	if ms := positiveEnv("BASH_DEFAULT_TIMEOUT_MS"); ms > 0 {
		l.defaultTimeout = time.Duration(ms) * time.Millisecond
	}
	if ms := positiveEnv("BASH_MAX_TIMEOUT_MS"); ms > 0 {
		l.maxTimeout = time.Duration(ms) * time.Millisecond
	}
	l.maxTimeout = max(l.maxTimeout, l.defaultTimeout)
	if n := positiveEnv("BASH_MAX_OUTPUT_LENGTH"); n > 0 {
		l.maxOutput = int(min(n, claudeBashOutputCeiling))
	}
	return l
}

// timeout is the run time a call asking for ms (nil or 0: none) gets.
func (l bashLimits) timeout(ms *int64) time.Duration {
	if ms == nil || *ms <= 0 {
		return l.defaultTimeout
	}
	return time.Duration(min(*ms, l.maxTimeout.Milliseconds())) * time.Millisecond
}

// describe puts the limits into Bash's description and the timeout
// parameter's, where Claude Code states its own.
func (l bashLimits) describe(text string) string {
	minutes := func(d time.Duration) string {
		return strconv.FormatFloat(d.Minutes(), 'f', -1, 64)
	}
	return strings.NewReplacer(
		"up to 600000ms / 10 minutes", fmt.Sprintf("up to %dms / %s minutes", l.maxTimeout.Milliseconds(), minutes(l.maxTimeout)),
		"after 120000ms (2 minutes)", fmt.Sprintf("after %dms (%s minutes)", l.defaultTimeout.Milliseconds(), minutes(l.defaultTimeout)),
		"exceeds 30000 characters", fmt.Sprintf("exceeds %d characters", l.maxOutput),
		"(max 600000)", fmt.Sprintf("(max %d)", l.maxTimeout.Milliseconds()),
	).Replace(text)
}
