package rollout

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/grovecli/grove/protocol"
)

// Session is a rollout read back in full.
type Session struct {
	Path         string
	Meta         SessionMeta
	Items        []protocol.Item
	Events       []protocol.Event
	TurnContexts []TurnContext
	// Note is the latest note (NoteSet: a note event was recorded).
	Note       string
	NoteSet    bool
	LastStatus *protocol.AgentStatus
	// Warnings name each skipped line: "<path>:<line>: skipped …".
	Warnings []string
}

// Read replays a rollout. Unreadable lines are skipped with a warning; a
// missing or invalid session_meta first line is an error naming the file.
func Read(path string) (*Session, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read rollout: %w", err)
	}
	defer f.Close()
	s := &Session{Path: path}
	haveMeta := false
	var metaErr error
	err = scanLines(f, func(n int, b []byte) {
		if len(bytes.TrimSpace(b)) == 0 {
			return
		}
		l, err := parseLine(b)
		if err != nil {
			if n == 1 {
				metaErr = fmt.Errorf("rollout %s:1: invalid session_meta line: %v", path, err)
				return
			}
			s.Warnings = append(s.Warnings, fmt.Sprintf("%s:%d: skipped unreadable line (%v)", path, n, err))
			return
		}
		switch l.Type {
		case TypeSessionMeta:
			if err := json.Unmarshal(l.Payload, &s.Meta); err != nil {
				metaErr = fmt.Errorf("rollout %s:%d: invalid session_meta: %v", path, n, err)
				return
			}
			haveMeta = true
		case TypeResponseItem:
			var it protocol.Item
			if err := json.Unmarshal(l.Payload, &it); err != nil {
				s.Warnings = append(s.Warnings, fmt.Sprintf("%s:%d: skipped unreadable item (%v)", path, n, err))
				return
			}
			s.Items = append(s.Items, it)
		case TypeEventMsg:
			var ev protocol.Event
			if err := json.Unmarshal(l.Payload, &ev); err != nil {
				s.Warnings = append(s.Warnings, fmt.Sprintf("%s:%d: skipped unreadable event (%v)", path, n, err))
				return
			}
			s.Events = append(s.Events, ev)
			switch ev.Type {
			case protocol.EventNoteUpdated:
				if ev.Note != nil {
					s.Note, s.NoteSet = *ev.Note, true
				}
			case protocol.EventStatusChanged:
				if ev.Status != nil {
					st := *ev.Status
					s.LastStatus = &st
				}
			}
		case TypeTurnContext:
			var tc TurnContext
			if json.Unmarshal(l.Payload, &tc) == nil {
				s.TurnContexts = append(s.TurnContexts, tc)
			}
		default:
			s.Warnings = append(s.Warnings, fmt.Sprintf("%s:%d: skipped line of unknown type %q", path, n, l.Type))
		}
	})
	if err != nil {
		return nil, fmt.Errorf("read rollout %s: %w", path, err)
	}
	if metaErr != nil {
		return nil, metaErr
	}
	if !haveMeta {
		return nil, fmt.Errorf("rollout %s: no session_meta line", path)
	}
	return s, nil
}

// reverseBlock is how much ReverseScan reads at a time.
const reverseBlock = 64 << 10

// ReverseScan calls fn for each valid line from the end of the file
// backwards, reading in blocks (never the whole file). It stops when fn
// returns false. Torn or invalid lines are skipped.
func ReverseScan(path string, fn func(Line) bool) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("scan rollout: %w", err)
	}
	defer f.Close()
	return reverseLines(f, func(b []byte) bool {
		l, err := parseLine(b)
		if err != nil {
			return true
		}
		return fn(l)
	})
}

// reverseLines calls fn with each non-empty line, last first.
func reverseLines(f *os.File, fn func([]byte) bool) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	pos := st.Size()
	var carry []byte // the start of a line whose beginning is in an earlier block
	buf := make([]byte, reverseBlock)
	for pos > 0 {
		n := int64(reverseBlock)
		if pos < n {
			n = pos
		}
		pos -= n
		if _, err := f.ReadAt(buf[:n], pos); err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		chunk := append(buf[:n:n], carry...)
		for {
			i := bytes.LastIndexByte(chunk, '\n')
			if i < 0 {
				break
			}
			line := trimEOL(chunk[i+1:])
			if len(bytes.TrimSpace(line)) > 0 && !fn(line) {
				return nil
			}
			chunk = chunk[:i]
		}
		carry = append([]byte(nil), chunk...)
	}
	if line := trimEOL(carry); len(bytes.TrimSpace(line)) > 0 {
		fn(line)
	}
	return nil
}

// LastStatusChange finds the newest status_changed event of a rollout by a
// reverse scan of its tail.
func LastStatusChange(path string) (status protocol.AgentStatus, at time.Time, ok bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return status, at, false, fmt.Errorf("scan rollout: %w", err)
	}
	defer f.Close()
	marker := []byte(`"status_changed"`)
	err = reverseLines(f, func(b []byte) bool {
		if !bytes.Contains(b, marker) { // cheap filter before decoding
			return true
		}
		l, err := parseLine(b)
		if err != nil || l.Type != TypeEventMsg {
			return true
		}
		var ev protocol.Event
		if json.Unmarshal(l.Payload, &ev) != nil || ev.Type != protocol.EventStatusChanged || ev.Status == nil {
			return true
		}
		status, at, ok = *ev.Status, ev.Timestamp, true
		if at.IsZero() {
			at = l.Timestamp
		}
		return false
	})
	return status, at, ok, err
}
