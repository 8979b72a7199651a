package hooks

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/grovecli/grove/core/sandbox"
)

func TestMain(m *testing.M) {
	// Hooks run through the sandbox helper, which re-executes this binary.
	sandbox.MaybeRunHelper()
	goleak.VerifyTestMain(m)
}
