package visible

import "io"

// Writer passes everything written to it through Text: for an output
// stream every line of which may carry model- or repository-controlled
// text (`grove exec`'s progress and final message, `grove sessions list`,
// `grove hooks list`, `grove doctor`). Each Write should be whole text (as
// fmt.Fprint's are): a character split across two writes is shown escaped.
type Writer struct{ w io.Writer }

// NewWriter wraps w (a Writer is returned as it is).
func NewWriter(w io.Writer) io.Writer {
	if v, ok := w.(*Writer); ok {
		return v
	}
	return &Writer{w: w}
}

// Write writes Text(p) and reports len(p) written when all of it was.
func (v *Writer) Write(p []byte) (int, error) {
	s := string(p)
	if out := Text(s); out != s {
		if _, err := io.WriteString(v.w, out); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return v.w.Write(p)
}
