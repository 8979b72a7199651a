package main

import (
	"strings"
	"testing"

	"github.com/grovecli/grove/core/sandbox"
)

func TestDoctorSaysWhatIsLostWithoutNamespaces(t *testing.T) {
	var b strings.Builder
	writeDoctor(&b, sandbox.HostReport{OS: "linux", LandlockABI: 5})
	out := b.String()
	for _, want := range []string{"Landlock ABI 5: file access, TCP connect/bind confined", "user namespaces: unavailable", "this host loses:", "protected paths", "PID namespace", "RLIMIT_NPROC"} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	b.Reset()
	writeDoctor(&b, sandbox.HostReport{OS: "linux", LandlockErr: "no Landlock", Namespaces: true})
	if out := b.String(); !strings.Contains(out, "read-only and workspace-write refuse to run") || !strings.Contains(out, "would lose") {
		t.Errorf("%s", out)
	}
	// The real host, through the real probe.
	b.Reset()
	writeDoctor(&b, sandbox.Doctor())
	if !strings.Contains(b.String(), "user namespaces: ") {
		t.Errorf("%s", b.String())
	}
}
