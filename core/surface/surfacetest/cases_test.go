package surfacetest_test

import (
	"fmt"
	"testing"

	"go.uber.org/goleak"

	"github.com/grovecli/grove/core/surface/surfacetest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// seedCase is one clause of a seed (docs/seeds.md row id), checked by
// what grove sends the model back and the events it emits.
type seedCase struct {
	clause string
	cfg    surfacetest.Config
	// prompt is the root's message; it must carry the root's AS: marker
	// (default "AS:root go").
	prompt string
	// run, when set, drives the session instead of env.Run(prompt).
	run   func(t *testing.T, env *surfacetest.Env)
	check func(t *testing.T, env *surfacetest.Env)
}

func runCases(t *testing.T, cases []seedCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.clause, func(t *testing.T) {
			env := surfacetest.Start(t, c.cfg)
			prompt := c.prompt
			if prompt == "" {
				prompt = "AS:root go"
			}
			if c.run != nil {
				c.run(t, env)
			} else {
				env.Run(prompt)
			}
			c.check(t, env)
		})
	}
}

// exact fails unless got is want byte for byte.
func exact(t *testing.T, what, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}

func sprintf(format string, a ...any) string { return fmt.Sprintf(format, a...) }
