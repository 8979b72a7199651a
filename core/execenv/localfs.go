package execenv

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/grovecli/grove/core/tools/safefile"
)

// Stat follows symlinks, as the tools always have.
func (Local) Stat(_ context.Context, path string) (FileInfo, error) {
	st, err := os.Stat(path)
	if err != nil {
		return FileInfo{}, err
	}
	return FileInfo{Name: st.Name(), Size: st.Size(), Mode: st.Mode(), ModTime: st.ModTime()}, nil
}

// Open opens a regular file with safefile (no FIFO blocks it, no device).
func (Local) Open(_ context.Context, path string) (io.ReadCloser, error) {
	return safefile.Open(path)
}

// ReadDir lists path sorted by name.
func (Local) ReadDir(_ context.Context, path string) ([]DirEntry, error) {
	des, err := os.ReadDir(path)
	if err != nil {
		return nil, err
	}
	out := make([]DirEntry, len(des))
	for i, d := range des {
		out[i] = DirEntry{Name: d.Name(), Type: d.Type()}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Walk lists the regular files beneath root; unreadable entries are
// skipped, as grep does.
func (Local) Walk(ctx context.Context, root string, max int) (WalkResult, error) {
	var res WalkResult
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		if len(res.Files) == max {
			res.Truncated = true
			return filepath.SkipAll
		}
		res.Files = append(res.Files, WalkFile{Rel: filepath.ToSlash(rel), Size: info.Size()})
		return nil
	})
	if err != nil {
		return res, fmt.Errorf("walk %s: %w", root, err)
	}
	return res, nil
}
