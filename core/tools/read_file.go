package tools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"unicode/utf8"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/tools/schema"
)

const (
	readDefaultLimit = 2000
	readMaxLineLen   = 500  // characters kept of a long line
	binarySniffLen   = 8000 // bytes inspected for NULs, as git does
)

type readFile struct{}

// readFileArgs are read_file's arguments; its schema is generated from them.
type readFileArgs struct {
	Path     string `json:"path" jsonschema:"File to read: absolute, or relative to the working directory."`
	FilePath string `json:"file_path" jsonschema:"Alias of path."`
	Offset   int    `json:"offset" minimum:"1" jsonschema:"1-based number of the first line to return (default 1)."`
	Limit    int    `json:"limit" minimum:"1" jsonschema:"Maximum number of lines to return (default 2000)."`
}

// NewReadFile returns the read_file tool.
func NewReadFile() Tool { return readFile{} }

func (readFile) Spec() model.ToolSpec {
	return model.ToolSpec{Name: "read_file", Description: fmt.Sprintf("Read a text file. Each line comes back prefixed with its 1-based number as `L<n>: `; lines longer than %d characters are cut. Reads up to %d lines from offset; page through long files with offset and limit. Use list_dir for directories.", readMaxLineLen, readDefaultLimit), Parameters: schema.MustObject(readFileArgs{})}
}

func (readFile) Run(ctx context.Context, env *Env, raw json.RawMessage) Result {
	var a readFileArgs
	if err := decode("read_file", raw, &a); err != nil {
		return Errorf("%v", err)
	}
	p := firstNonEmpty(a.Path, a.FilePath)
	if p == "" {
		return Errorf(`invalid arguments for read_file: field "path" is required (expected string: the file to read)`)
	}
	a.Offset = max(a.Offset, 1)
	if a.Limit <= 0 {
		a.Limit = readDefaultLimit
	}
	abs := resolvePath(env.Cwd, p)
	fsys := env.Backend()
	st, err := fsys.Stat(ctx, abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Errorf("read_file: %s: no such file", p)
	case err != nil:
		return Errorf("read_file: %v", err)
	case st.IsDir():
		return Errorf("read_file: %s is a directory; use list_dir to see what it holds", p)
	case !st.Mode.IsRegular():
		return Errorf("read_file: %s is not a regular file", p)
	}
	f, err := fsys.Open(ctx, abs)
	if err != nil {
		return Errorf("read_file: %v", err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	if head, _ := br.Peek(binarySniffLen); bytes.IndexByte(head, 0) >= 0 {
		return Errorf("read_file: %s looks like a binary file; not showing it", p)
	}
	var out strings.Builder
	line, shown := 0, 0
	for {
		if shown == a.Limit {
			// Only count what is left, to tell the model where to continue.
			rest, err := countLines(ctx, br)
			if err != nil {
				return Errorf("read_file: %s: %v", p, err)
			}
			line += rest
			break
		}
		b, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer: keep its head, skip the rest.
			long := append([]byte(nil), b...)
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			b = long
		}
		if len(b) > 0 {
			line++
			if line >= a.Offset {
				fmt.Fprintf(&out, "L%d: %s\n", line, clipLine(bytes.TrimRight(b, "\r\n")))
				shown++
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return Errorf("read_file: %s: %v", p, err)
		}
		if line%4096 == 0 && ctx.Err() != nil {
			return Errorf("read_file: interrupted")
		}
	}
	switch {
	case line == 0:
		return Result{Output: "(the file is empty)", Summary: "read " + p + " (empty)"}
	case a.Offset > line:
		return Errorf("read_file: offset %d is past the end of %s: the file has %d lines", a.Offset, p, line)
	}
	if last := a.Offset + shown - 1; last < line {
		fmt.Fprintf(&out, "[… %d more lines; continue with offset %d]\n", line-last, last+1)
	}
	return Result{Output: out.String(), Summary: fmt.Sprintf("read %s (%d lines)", p, shown)}
}

// clipLine cuts a line to readMaxLineLen characters.
func clipLine(b []byte) string {
	if utf8.RuneCount(b) <= readMaxLineLen {
		return string(b)
	}
	r := []rune(string(b))
	return string(r[:readMaxLineLen]) + " [… line truncated]"
}

// countLines counts the remaining lines (a last line without a newline
// counts too).
func countLines(ctx context.Context, r io.Reader) (int, error) {
	buf := make([]byte, 64<<10)
	n, last := 0, byte('\n')
	for {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		k, err := r.Read(buf)
		if k > 0 {
			n += bytes.Count(buf[:k], []byte{'\n'})
			last = buf[k-1]
		}
		if err == io.EOF {
			if last != '\n' {
				n++
			}
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
