package engine

import (
	"context"
	"testing"
	"time"
)

// TestTimeLimitInStepOrBetweenSteps: seed 004 §3.4.2 (clause 004-31) words a
// time limit by where it struck: during a turn (`Turn timed out`) or at the
// loop's top, between turns or before the first (`Subagent timed out after
// N seconds`). A step that ended at or after the deadline was cut by it (or
// ran past it); one that ended before it left the limit to strike between
// steps.
func TestTimeLimitInStepOrBetweenSteps(t *testing.T) {
	deadline := time.Now().Add(-time.Second)
	for _, tc := range []struct {
		name      string
		steps     int
		stepEnded time.Time
		reason    string
		want      bool
	}{
		{"cut mid-step", 1, deadline.Add(time.Millisecond), LimitTimeout, true},
		{"step ended exactly at the deadline", 1, deadline, LimitTimeout, true},
		{"between two steps", 2, deadline.Add(-time.Millisecond), LimitTimeout, false},
		{"before the first step", 0, time.Time{}, LimitTimeout, false},
		{"max turns is not a time", 1, deadline.Add(time.Millisecond), LimitMaxSteps, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithDeadline(context.Background(), deadline)
			defer cancel()
			th := &Thread{}
			r := &turnRun{t: th, limitCtx: ctx, steps: tc.steps, stepEnded: tc.stepEnded}
			r.noteLimitInStep(tc.reason)
			if th.turn.inStep != tc.want {
				t.Errorf("inStep = %v, want %v", th.turn.inStep, tc.want)
			}
		})
	}
}
