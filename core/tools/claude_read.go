package tools

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/grovecli/grove/core/execenv"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/tools/schema"
)

// Claude Code's Read limits: 2000 lines from offset, lines cut at 2000
// characters, a whole-file read of more than 256 KB refused, images up to
// the API's size.
const (
	claudeReadLines    = 2000
	claudeReadLineLen  = 2000
	claudeReadMaxBytes = 256 << 10
	claudeImageMax     = 3_750_000 // base64 of it stays under the API's 5 MB
	claudeReadHardMax  = 64 << 20  // even a paged read loads the file
)

type claudeRead struct{ reads *readState }

// claudeReadArgs are Read's arguments (Claude Code's names).
type claudeReadArgs struct {
	FilePath string `json:"file_path" required:"true" jsonschema:"The absolute path to the file to read"`
	Offset   int    `json:"offset" jsonschema:"The line number to start reading from. Only provide if the file is too large to read at once"`
	Limit    int    `json:"limit" jsonschema:"The number of lines to read. Only provide if the file is too large to read at once."`
}

const claudeReadDesc = `Reads a file from the local filesystem. You can access any file directly by using this tool.
Assume this tool is able to read all files on the machine. If the User provides a path to a file assume that path is valid. It is okay to read a file that does not exist; an error will be returned.

Usage:
- The file_path parameter must be an absolute path, not a relative path
- By default, it reads up to 2000 lines starting from the beginning of the file
- You can optionally specify a line offset and limit (especially handy for long files), but it's recommended to read the whole file by not providing these parameters
- Any lines longer than 2000 characters will be truncated
- Results are returned using cat -n format, with line numbers starting at 1
- This tool can read images (eg PNG, JPG, GIF, WEBP): the contents are presented visually.
- Jupyter notebooks (.ipynb) come back as their cells with their outputs. PDF files cannot be read by this tool: extract their text with Bash (pdftotext).
- This tool can only read files, not directories. To list a directory, use ls via the Bash tool or the Glob tool.
- If you read a file that exists but has empty contents you will receive a system reminder warning in place of file contents.`

func (claudeRead) Spec() model.ToolSpec {
	return model.ToolSpec{Name: ClaudeRead, Description: claudeReadDesc, Parameters: schema.MustObject(claudeReadArgs{})}
}

func (t claudeRead) Run(ctx context.Context, env *Env, raw json.RawMessage) Result {
	var a claudeReadArgs
	if err := decode(ClaudeRead, raw, &a); err != nil {
		return Errorf("%v", err)
	}
	if a.FilePath == "" {
		return Errorf(`invalid arguments for Read: field "file_path" is required`)
	}
	abs := resolvePath(env.Cwd, a.FilePath)
	fsys := env.Backend()
	st, err := fsys.Stat(ctx, abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Errorf("File does not exist.")
	case err != nil:
		return Errorf("Read: %v", err)
	case st.IsDir():
		return Errorf("EISDIR: illegal operation on a directory, read: %s is a directory; list it with Glob or with ls through Bash", abs)
	case !st.Mode.IsRegular():
		return Errorf("Read: %s is not a regular file", abs)
	}
	switch ext := strings.ToLower(filepath.Ext(abs)); {
	case imageTypes[ext] != "":
		return t.image(ctx, env, fsys, abs, st, imageTypes[ext])
	case ext == ".pdf":
		return Errorf("Read: %s is a PDF; grove cannot hand PDF documents to the model. Extract the text with Bash, e.g. `pdftotext %s -`", abs, shellQuote(abs))
	case ext == ".ipynb":
		return t.notebook(ctx, env, fsys, abs, st)
	}
	if st.Size > claudeReadHardMax {
		return Errorf("Read: %s is %d MB, too large to read; search it with Grep or print a part with Bash (sed -n '100,200p')", abs, st.Size>>20)
	}
	if a.Offset <= 0 && a.Limit <= 0 && st.Size > claudeReadMaxBytes {
		return Errorf("File content (%d KB) exceeds maximum allowed size (%d KB). Please use offset and limit parameters to read specific portions of the file, or use the Grep tool to search for specific content.", st.Size>>10, claudeReadMaxBytes>>10)
	}
	data, err := readAllFrom(ctx, fsys, abs, st.Size)
	if err != nil {
		return Errorf("Read: %v", err)
	}
	if bytes.IndexByte(data[:min(len(data), binarySniffLen)], 0) >= 0 {
		return Errorf("This tool cannot read binary files. The file appears to be a binary %s file. Please use appropriate tools for binary file analysis.", strings.TrimPrefix(filepath.Ext(abs), "."))
	}
	if a.Offset > 0 || a.Limit > 0 {
		if msg := readTokensOver(string(data), a.Offset, a.Limit); msg != "" {
			return Errorf("%s", msg)
		}
	}
	t.reads.saw(env.ThreadID, abs, readStamp{modTime: st.ModTime, size: st.Size})
	return claudeNumbered(abs, string(data), a.Offset, a.Limit)
}

// claudeNumbered is Read's answer for a text file.
func claudeNumbered(abs, text string, offset, limit int) Result {
	if text == "" {
		return Result{Output: "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>", Summary: "read " + abs + " (empty)"}
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	first := max(offset, 1)
	if first > len(lines) {
		return Result{Output: fmt.Sprintf("<system-reminder>Warning: the file exists but is shorter than the provided offset (%d). The file has %d lines.</system-reminder>", offset, len(lines)), Summary: "read " + abs}
	}
	if limit <= 0 {
		limit = claudeReadLines
	}
	last := min(len(lines), first+limit-1)
	return Result{Output: catN(lines[first-1:last], first), Summary: fmt.Sprintf("read %s (%d lines)", abs, last-first+1)}
}

// catN numbers lines the way Claude Code prints them: the number right
// aligned in six columns, an arrow, the line (cut at 2000 characters).
func catN(lines []string, first int) string {
	var b strings.Builder
	for i, l := range lines {
		l = strings.TrimSuffix(l, "\r")
		if utf8.RuneCountInString(l) > claudeReadLineLen {
			l = string([]rune(l)[:claudeReadLineLen])
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%6d→%s", first+i, l)
	}
	return b.String()
}

// imageTypes are the image files Read hands to the model as images.
var imageTypes = map[string]string{".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp"}

// image returns an image file as an image input.
func (t claudeRead) image(ctx context.Context, env *Env, fsys execenv.FileSystem, abs string, st execenv.FileInfo, mime string) Result {
	if st.Size > claudeImageMax {
		return Errorf("Read: %s is %d KB; images over %d KB cannot be sent to the model. Shrink it first (e.g. with ImageMagick through Bash).", abs, st.Size>>10, claudeImageMax>>10)
	}
	data, err := readAllFrom(ctx, fsys, abs, st.Size)
	if err != nil {
		return Errorf("Read: %v", err)
	}
	t.reads.saw(env.ThreadID, abs, readStamp{modTime: st.ModTime, size: st.Size})
	url := "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data)
	return Result{Output: fmt.Sprintf("[image %s: %s, %d bytes]", abs, mime, len(data)), Images: []string{url}, Summary: "read image " + abs}
}

// readAllFrom reads a whole file through the backend, refusing to read
// far more than it said it held (a file growing while read).
func readAllFrom(ctx context.Context, fsys execenv.FileSystem, abs string, size int64) ([]byte, error) {
	f, err := fsys.Open(ctx, abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	capBytes := max(size, 0) + 1<<20
	data, err := io.ReadAll(io.LimitReader(f, capBytes+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > capBytes {
		return nil, fmt.Errorf("%s grew while it was read", abs)
	}
	return data, nil
}

// shellQuote quotes s for a bash command line.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
