package tools

import (
	"context"
	"encoding/json"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/tools/schema"
	"github.com/grovecli/grove/protocol"
)

// GlobFilesName is seed 004's file-finding tool, named in its Explore and
// Plan agents' tool lists and prompts ("`glob_files` for finding files by
// pattern", §4).
const GlobFilesName = "glob_files"

// globFilesTool is glob_files: the seed names the tool and its purpose and
// nothing more, so it takes Claude Code's Glob contract (the tool
// ASYNC_SAFE_TOOLS calls "File pattern matching"): a pattern and an
// optional directory, matches newest first, at most 100.
type globFilesTool struct{}

// GlobFiles returns the glob_files tool. It is in neither core set (Codex
// has no such tool; Claude Code's is Glob): a surface gives it to the
// agents whose definitions name it.
func GlobFiles() Tool { return globFilesTool{} }

// globFilesArgs are glob_files' arguments.
type globFilesArgs struct {
	Pattern string `json:"pattern" required:"true" jsonschema:"Glob pattern to match file paths against, relative to path (e.g. \"**/*.go\" or \"src/**/*_test.ts\")."`
	Path    string `json:"path" jsonschema:"Directory to search in; defaults to the working directory."`
}

const globFilesDesc = `Finds files by glob pattern ("**/*.go", "cmd/*/main.go"). Returns the matching file paths, most recently modified first; at most 100 paths, so narrow the pattern or path for more.`

func (globFilesTool) Spec() model.ToolSpec {
	return model.ToolSpec{Name: GlobFilesName, Description: globFilesDesc, Parameters: schema.MustObject(globFilesArgs{})}
}

func (globFilesTool) Run(ctx context.Context, env *Env, raw json.RawMessage) Result {
	return runGlob(ctx, env, GlobFilesName, raw)
}

func (globFilesTool) Kind() protocol.ToolKind { return protocol.ToolKindSearch }
