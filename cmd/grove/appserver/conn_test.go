package appserver

import (
	"strings"
	"testing"

	"github.com/grovecli/grove/protocol"
)

// FuzzDecision: any client answer maps to a known decision or an error,
// and only the accept forms approve.
func FuzzDecision(f *testing.F) {
	for _, s := range []string{`"accept"`, `"acceptForSession"`, `"decline"`, `"cancel"`, `{"acceptWithExecpolicyAmendment":{}}`, `null`, `{}`, `"ACCEPT"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		d, err := decision([]byte(raw))
		if err != nil {
			return
		}
		switch d {
		case protocol.DecisionApproved, protocol.DecisionApprovedForSession:
			if !strings.Contains(strings.ToLower(raw), "accept") && !strings.Contains(raw, "approved") && !strings.Contains(raw, "apply") {
				t.Fatalf("%s approves", raw)
			}
		case protocol.DecisionDenied, protocol.DecisionAbort:
		default:
			t.Fatalf("%s → unknown decision %q", raw, d)
		}
	})
}
