package safefile

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// writerEnv makes the test binary the writer TestKilledWriteLeavesNoTempFile kills.
const writerEnv = "GROVE_SAFEFILE_TEST_WRITE_DIR"

// TestHelperLargeWrite is the writer process: it writes a large file
// through WriteFile, many times, until it is killed.
func TestHelperLargeWrite(t *testing.T) {
	dir := os.Getenv(writerEnv)
	if dir == "" {
		t.Skip("the writer process of TestKilledWriteLeavesNoTempFile")
	}
	r, err := OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("x"), 64<<20)
	for {
		if err := r.WriteFile("big.bin", data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestKilledWriteLeavesNoTempFile (issue 36.5): a process killed with -9
// while WriteFile (apply_patch, a revert) writes a large file leaves no
// `.grove-patch-*` file in the workspace.
func TestKilledWriteLeavesNoTempFile(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperLargeWrite$")
	cmd.Env = append(os.Environ(), writerEnv+"="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill it mid-write: once a file it writes is open (named or not)
	// and not yet big.bin. Polled without pausing: a 64 MiB write lasts
	// milliseconds.
	fdDir := filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid), "fd")
	deadline := time.Now().Add(60 * time.Second)
	for !writing(fdDir, dir) {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatal("the writer never started writing")
		}
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), TempPrefix) {
			t.Fatalf("a killed write left %s in the workspace", e.Name())
		}
	}
}

// writing reports whether the process with fdDir has a file under dir
// open that is not big.bin.
func writing(fdDir, dir string) bool {
	ents, _ := os.ReadDir(fdDir)
	for _, e := range ents {
		target, err := os.Readlink(filepath.Join(fdDir, e.Name()))
		if err == nil && strings.HasPrefix(target, dir+"/") && !strings.HasSuffix(target, "/big.bin") {
			return true
		}
	}
	return false
}
