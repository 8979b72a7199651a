package modeltest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// LoadFixture reads a recorded stream: one SSE data payload per line (the
// `*.chunks.txt` format of provider SDK test suites), or a raw SSE
// capture (`data: …` lines; `event:` lines, comments and `data: [DONE]`
// are left out: RecordedDone adds the terminator back). Blank lines are
// skipped.
func LoadFixture(path string) ([]string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load fixture: %w", err)
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "", strings.HasPrefix(line, ":"), strings.HasPrefix(line, "event:"):
			continue
		case strings.HasPrefix(line, "data:"):
			line = strings.TrimSpace(strings.TrimPrefix(line, "data:"))
			if line == "[DONE]" {
				continue
			}
		}
		out = append(out, line)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("load fixture %s: %w", path, err)
	}
	return out, nil
}

// recordedEvents frames a Reply's recorded payloads as SSE (nil when the
// reply is not a recording).
func recordedEvents(r Reply) []string {
	if r.Recorded == nil {
		return nil
	}
	out := make([]string, 0, len(r.Recorded)+1)
	for _, data := range r.Recorded {
		var head struct {
			Type string `json:"type"`
		}
		ev := ""
		if json.Unmarshal([]byte(data), &head) == nil && head.Type != "" {
			ev = "event: " + head.Type + "\n"
		}
		out = append(out, ev+"data: "+data+"\n\n")
	}
	if r.RecordedDone {
		out = append(out, "data: [DONE]\n\n")
	}
	return out
}
