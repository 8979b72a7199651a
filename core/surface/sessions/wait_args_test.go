package sessions

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/tools"
)

// TestWaitSessionTimeoutIsARequiredI32: seed 003 gives wait_session
// `timeout_ms: i32` (clause 003-29): no Option, so a call without it is
// refused (serde's `missing field`), and a number beyond i32 is not one.
// Both are refused before any session is looked up or waited on.
func TestWaitSessionTimeoutIsARequiredI32(t *testing.T) {
	s := &Surface{}
	for raw, want := range map[string]string{
		`{"session_id":"x"}`:                         "wait_session: invalid arguments: missing field `timeout_ms`",
		`{"session_id":"x","timeout_ms":3000000000}`: "wait_session: invalid arguments: ",
	} {
		r := s.wait(context.Background(), &tools.Env{}, json.RawMessage(raw))
		if !r.IsError || !strings.HasPrefix(r.Output, want) {
			t.Errorf("%s: %+v, want an error starting %q", raw, r, want)
		}
	}
}
