package patch

import (
	"errors"
	"fmt"

	"github.com/grovecli/grove/core/tools/safefile"
)

// MaxFileBytes bounds every file apply_patch reads (to update, delete or
// remember for its undo) and writes (added or updated content). grove
// holds a file's old and new content in memory and writes a temporary
// copy beside it, so without a bound a sparse 512 MiB file (a few blocks
// on disk) took grove to 3 GiB and filled the disk (issue 31 item 16).
// The size is checked before reading (a sparse file counts its full
// length) and the read itself stops at the bound (a file growing between
// the two is caught too).
const MaxFileBytes = 32 << 20

// tooLarge is the model's error for a file over the bound.
func tooLarge(size int64) error {
	return fmt.Errorf("the file is %s; apply_patch reads and writes files up to %s (a sparse file counts its full length): change it with a command instead",
		humanBytes(size), humanBytes(MaxFileBytes))
}

// readBounded reads path, refusing one over MaxFileBytes.
func readBounded(path string, size int64) ([]byte, error) {
	if size > MaxFileBytes {
		return nil, tooLarge(size)
	}
	b, err := safefile.ReadFileMax(path, MaxFileBytes)
	if errors.Is(err, safefile.ErrTooLarge) {
		return nil, fmt.Errorf("it grew past %s while being read; apply_patch edits files up to that size", humanBytes(MaxFileBytes))
	}
	return b, err
}

// checkNewSize refuses new content over MaxFileBytes.
func checkNewSize(content string) error {
	if n := int64(len(content)); n > MaxFileBytes {
		return fmt.Errorf("the new content would be %s; apply_patch writes files up to %s", humanBytes(n), humanBytes(MaxFileBytes))
	}
	return nil
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
