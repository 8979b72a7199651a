package tools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/grovecli/grove/core/model"
)

const (
	readDefaultLimit = 2000
	readMaxLineLen   = 500
)

type readFile struct{}

// NewReadFile returns the read_file tool.
func NewReadFile() Tool { return readFile{} }

func (readFile) Spec() model.ToolSpec {
	return model.ToolSpec{Name: "read_file", Description: "Read a text file with line numbers. Lines come back as `L<n>: text`; use offset/limit to page through large files.", Parameters: json.RawMessage(`{"type":"object","properties":{
"path":{"type":"string","description":"File to read (absolute or relative to the working directory)."},
"file_path":{"type":"string","description":"Alias of path."},
"offset":{"type":"integer","minimum":1,"description":"1-based first line (default 1)."},
"limit":{"type":"integer","minimum":1,"description":"Maximum lines (default 2000)."}
},"additionalProperties":false}`)}
}

func (readFile) Run(ctx context.Context, env *Env, raw json.RawMessage) Result {
	var a struct {
		Path     string `json:"path"`
		FilePath string `json:"file_path"`
		Offset   int    `json:"offset"`
		Limit    int    `json:"limit"`
	}
	if err := decode("read_file", raw, &a); err != nil {
		return Errorf("%v", err)
	}
	p := a.Path
	if p == "" {
		p = a.FilePath
	}
	if p == "" {
		return Errorf("read_file: missing required field path")
	}
	if a.Offset == 0 {
		a.Offset = 1
	}
	if a.Limit == 0 {
		a.Limit = readDefaultLimit
	}
	abs := resolvePath(env.Cwd, p)
	st, err := os.Stat(abs)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return Errorf("read_file: %s: no such file", p)
		}
		return Errorf("read_file: %v", err)
	}
	if st.IsDir() {
		return Errorf("read_file: %s is a directory; use list_dir", p)
	}
	f, err := os.Open(abs)
	if err != nil {
		return Errorf("read_file: %v", err)
	}
	defer f.Close()
	head := make([]byte, 8000)
	n, _ := io.ReadFull(f, head)
	if bytes.IndexByte(head[:n], 0) >= 0 {
		return Errorf("read_file: %s looks like a binary file", p)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return Errorf("read_file: %v", err)
	}
	br := bufio.NewReaderSize(f, 64<<10)
	var out strings.Builder
	line, shown := 0, 0
	for {
		if ctx.Err() != nil {
			return Errorf("read_file: cancelled")
		}
		b, err := br.ReadString('\n')
		if len(b) > 0 || err == nil {
			line++
			if line >= a.Offset && shown < a.Limit {
				text := strings.TrimRight(b, "\r\n")
				if utf8.RuneCountInString(text) > readMaxLineLen {
					text = string([]rune(text)[:readMaxLineLen]) + " [… line truncated]"
				}
				fmt.Fprintf(&out, "L%d: %s\n", line, text)
				shown++
			}
		}
		if err != nil {
			break
		}
	}
	if a.Offset > line && !(line == 0 && a.Offset == 1) {
		return Errorf("read_file: offset %d is past the end of %s (%d lines)", a.Offset, p, line)
	}
	if shown == a.Limit && line > a.Offset+shown-1 {
		fmt.Fprintf(&out, "[… %d more lines; continue with offset %d]\n", line-(a.Offset+shown-1), a.Offset+shown)
	}
	return Result{Output: out.String(), Summary: fmt.Sprintf("read %s (%d lines)", p, shown)}
}
