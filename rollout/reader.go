package rollout

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/grovecli/grove/protocol"
)

// Session is a rollout read back in full.
type Session struct {
	Path         string
	Meta         SessionMeta
	Items        []protocol.Item
	Events       []protocol.Event
	TurnContexts []TurnContext
	// Note is the latest thread_note_updated note; NoteSet says one was
	// recorded (otherwise Meta.Note is the thread's note).
	Note    string
	NoteSet bool
	// LastStatus is the latest status_changed status, nil if none.
	LastStatus *protocol.AgentStatus
	// Compactions counts the compacted lines applied to Items.
	Compactions int
	// Warnings name each skipped line: "<path>:<line>: skipped unreadable line (…)".
	Warnings []string
}

// Read replays a rollout. Unreadable lines (a torn last line after a kill,
// a corrupted line) are skipped with a warning; a missing or invalid
// session_meta first line is an error naming the file.
func Read(path string) (*Session, error) {
	f, err := openRegular(path, os.O_RDONLY)
	if err != nil {
		return nil, fmt.Errorf("read rollout: %w", err)
	}
	defer f.Close()
	s := &Session{Path: path}
	haveMeta := false
	var metaErr error
	err = scanLines(f, func(n int, b []byte) {
		if metaErr != nil || len(bytes.TrimSpace(b)) == 0 {
			return
		}
		if !haveMeta {
			metaErr = s.readMeta(n, b)
			haveMeta = metaErr == nil
			return
		}
		if err := s.add(b); err != nil {
			s.Warnings = append(s.Warnings, fmt.Sprintf("%s:%d: skipped unreadable line (%v)", path, n, err))
		}
	})
	if err != nil {
		return nil, fmt.Errorf("read rollout %s: %w", path, err)
	}
	if metaErr != nil {
		return nil, metaErr
	}
	if !haveMeta {
		return nil, fmt.Errorf("rollout %s: empty file, no session_meta line", path)
	}
	return s, nil
}

// readMeta decodes the first line, which must be the session_meta.
func (s *Session) readMeta(n int, b []byte) error {
	l, err := parseLine(b)
	if err != nil {
		return fmt.Errorf("rollout %s:%d: invalid session_meta line: %v", s.Path, n, err)
	}
	if l.Type != TypeSessionMeta {
		return fmt.Errorf("rollout %s:%d: first line is %q, want %q", s.Path, n, l.Type, TypeSessionMeta)
	}
	if err := json.Unmarshal(l.Payload, &s.Meta); err != nil {
		return fmt.Errorf("rollout %s:%d: invalid session_meta payload: %v", s.Path, n, err)
	}
	if s.Meta.ID == "" {
		return fmt.Errorf("rollout %s:%d: session_meta has no id", s.Path, n)
	}
	return nil
}

// add applies one line after the session_meta.
func (s *Session) add(b []byte) error {
	l, err := parseLine(b)
	if err != nil {
		return err
	}
	switch l.Type {
	case TypeResponseItem:
		var it protocol.Item
		if err := json.Unmarshal(l.Payload, &it); err != nil {
			return fmt.Errorf("%s: %v", l.Type, err)
		}
		s.Items = append(s.Items, it)
	case TypeEventMsg:
		var ev protocol.Event
		if err := json.Unmarshal(l.Payload, &ev); err != nil {
			return fmt.Errorf("%s: %v", l.Type, err)
		}
		if ev.Type == protocol.EventInputQueued || ev.Type == protocol.EventInheritedToolCall { // rollout-only, not event kinds
			s.Events = append(s.Events, ev)
			break
		}
		msg, err := ev.Msg()
		var bad *protocol.MalformedEventError
		if errors.As(err, &bad) && bad.Missing == "" {
			// A kind this grove does not know (written by a newer one):
			// kept for whoever knows it, read by nobody here.
			s.Events = append(s.Events, ev)
			break
		}
		if err != nil {
			return fmt.Errorf("%s: %w", l.Type, err)
		}
		s.Events = append(s.Events, ev)
		switch m := msg.(type) {
		case protocol.NoteUpdatedMsg:
			s.Note, s.NoteSet = m.Note, true
		case protocol.StatusChangedMsg:
			s.LastStatus = &m.Status
		}
	case TypeTurnContext:
		var tc TurnContext
		if err := json.Unmarshal(l.Payload, &tc); err != nil {
			return fmt.Errorf("%s: %v", l.Type, err)
		}
		s.TurnContexts = append(s.TurnContexts, tc)
	case TypeCompacted:
		var c Compacted
		if err := json.Unmarshal(l.Payload, &c); err != nil {
			return fmt.Errorf("%s: %v", l.Type, err)
		}
		if c.ReplacementHistory == nil {
			// Codex's oldest compacted lines carry only the summary; the
			// history before it stays rather than being lost.
			return fmt.Errorf("%s: no replacement_history; history kept uncompacted", l.Type)
		}
		s.Items = c.ReplacementHistory
		s.Compactions++
	case TypeSessionMeta:
		return fmt.Errorf("a second %s line", l.Type)
	default:
		return fmt.Errorf("unknown type %q", l.Type)
	}
	return nil
}

// TotalUsage is the thread's token total as its last token_usage event
// recorded it (zero when none was): a resumed thread counts on from it, so
// its totals never fall back to what the new run alone spent.
func (s *Session) TotalUsage() protocol.TokenUsage {
	for i := len(s.Events) - 1; i >= 0; i-- {
		if ev := s.Events[i]; ev.Type == protocol.EventTokenUsage && ev.TotalUsage != nil {
			return *ev.TotalUsage
		}
	}
	return protocol.TokenUsage{}
}
