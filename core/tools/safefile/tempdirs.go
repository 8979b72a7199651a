package safefile

import (
	"os"
	"path/filepath"
)

// TempDirs are the temp directories a workspace-write sandbox may let
// commands write (Codex's defaults: /tmp and $TMPDIR; its
// exclude_slash_tmp / exclude_tmpdir_env_var keys only narrow this):
// the directories a model could have planted a file or link in, which a
// read on its behalf must treat as the model's. $TMPDIR counts only when
// absolute; os.TempDir()'s fallback is /tmp, listed anyway.
func TempDirs() []string {
	var out []string
	if st, err := os.Stat("/tmp"); err == nil && st.IsDir() {
		out = append(out, "/tmp")
	}
	if tmp := os.Getenv("TMPDIR"); tmp != "" && filepath.IsAbs(tmp) && tmp != "/tmp" {
		out = append(out, tmp)
	}
	return out
}
