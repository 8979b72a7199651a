package tools

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/tools/patch"
)

// sparseFile makes a file of size bytes that holds a line at its start
// and takes a few blocks on disk.
func sparseFile(t *testing.T, dir, name string, size int64) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("first line\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
}

// Issue 31 item 16: apply_patch on a sparse 512 MiB file took grove to
// 3 GiB and filled the disk. Update, delete and move are refused with a
// tool error naming the size and the bound, before the file is read; the
// file is untouched and no temporary file is left.
func TestApplyPatchRefusesSparseHugeFile(t *testing.T) {
	const size = 512 << 20
	for _, tc := range []struct{ name, patch, want string }{
		{"update", "*** Begin Patch\n*** Update File: big.bin\n@@\n-first line\n+pwned\n*** End Patch", "big.bin: cannot update: the file is 512 MiB"},
		{"delete", "*** Begin Patch\n*** Delete File: big.bin\n*** End Patch", "big.bin: cannot delete: the file is 512 MiB"},
		{"move", "*** Begin Patch\n*** Update File: big.bin\n*** Move to: moved.bin\n@@\n-first line\n+x\n*** End Patch", "the file is 512 MiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := coreRegistry(t)
			env := testEnv(t)
			sparseFile(t, env.Cwd, "big.bin", size)
			var before runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			res := run(t, r, env, "apply_patch", map[string]any{"input": tc.patch})
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			if !res.IsError || !strings.Contains(res.Output, tc.want) || !strings.Contains(res.Output, "up to 32 MiB") {
				t.Fatalf("want a tool error %q, got %+v", tc.want, res)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
				t.Errorf("apply_patch allocated %d MiB refusing it", grew>>20)
			}
			if st, err := os.Stat(filepath.Join(env.Cwd, "big.bin")); err != nil || st.Size() != size {
				t.Errorf("the file changed: %v", err)
			}
			assertNoTempFiles(t, env.Cwd)
		})
	}
}

// New content over the bound is refused too (an added file, an update
// that would grow past it).
func TestApplyPatchRefusesHugeNewContent(t *testing.T) {
	r := coreRegistry(t)
	env := testEnv(t)
	line := "+" + strings.Repeat("x", 1<<20) + "\n"
	p := "*** Begin Patch\n*** Add File: huge.txt\n" + strings.Repeat(line, patch.MaxFileBytes>>20+1) + "*** End Patch"
	res := run(t, r, env, "apply_patch", map[string]any{"input": p})
	if !res.IsError || !strings.Contains(res.Output, "huge.txt: cannot add: the new content would be") {
		t.Fatalf("got %+v", res.Output[:min(len(res.Output), 300)])
	}
	if _, err := os.Stat(filepath.Join(env.Cwd, "huge.txt")); err == nil {
		t.Error("the file was written")
	}
}
