package tools

import (
	"os"
	"path/filepath"
	"testing"
)

// openCorpus opens a recorded public session's extract. These come from public repositories'
// files, which this repository does not carry: the steering repository keeps them in
// shared/corpora/ (beside the clone, as CI lays it out), or GROVE_CORPUS_DIR names another
// folder. Without the file the replay skips and says where it is looked for; the README
// beside the test names each file's source and how it was extracted.
func openCorpus(t *testing.T, name string) *os.File {
	t.Helper()
	var dirs []string
	if d := os.Getenv("GROVE_CORPUS_DIR"); d != "" {
		dirs = append(dirs, d)
	}
	dirs = append(dirs, filepath.Join("..", "..", "..", "shared", "corpora"))
	for _, d := range dirs {
		f, err := os.Open(filepath.Join(d, name))
		if err == nil {
			return f
		}
	}
	t.Skipf("recorded corpus %s not present (looked in %v): see the README in testdata", name, dirs)
	return nil
}
