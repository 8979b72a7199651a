//go:build race

package sandbox

import "os"

// A race-enabled binary sleeps a second at exit to let reports flush; the
// helper is this binary re-executed, so under -race every sandboxed
// command would cost that second. Only race builds (tests) compile this.
func init() {
	if os.Getenv("GORACE") == "" {
		_ = os.Setenv("GORACE", "atexit_sleep_ms=0")
	}
}
