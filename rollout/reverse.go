package rollout

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/grovecli/grove/protocol"
)

// ReverseScan calls fn for each valid line of a rollout from the end
// backwards, reading 64 KiB blocks (never the whole file), and stops when
// fn returns false. Torn, blank or invalid lines are skipped.
func ReverseScan(path string, fn func(Line) bool) error {
	return reverseScan(path, reverseBlock, func(b []byte) bool {
		l, err := parseLine(b)
		if err != nil {
			return true
		}
		return fn(l)
	})
}

// reverseScan feeds the raw non-blank lines of path to fn, last first.
func reverseScan(path string, block int, fn func([]byte) bool) error {
	f, err := openRegular(path, os.O_RDONLY)
	if err != nil {
		return fmt.Errorf("reverse scan: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("reverse scan: %w", err)
	}
	if err := reverseLines(f, st.Size(), block, fn); err != nil {
		return fmt.Errorf("reverse scan %s: %w", path, err)
	}
	return nil
}

// statusMarker is a cheap filter: only lines holding it are decoded.
var statusMarker = []byte(`"` + protocol.EventStatusChanged + `"`)

// LastStatusChange returns the newest status_changed event of a rollout and
// when it happened (the event's time, else the line's), by a reverse scan
// of its tail; ok is false when the rollout has none. list_active_agents
// derives status_duration_sec from it.
func LastStatusChange(path string) (status protocol.AgentStatus, at time.Time, ok bool, err error) {
	err = reverseScan(path, reverseBlock, func(b []byte) bool {
		if !bytes.Contains(b, statusMarker) {
			return true
		}
		l, err := parseLine(b)
		if err != nil || l.Type != TypeEventMsg {
			return true
		}
		var ev protocol.Event
		if json.Unmarshal(l.Payload, &ev) != nil || ev.Type != protocol.EventStatusChanged {
			return true
		}
		msg, err := ev.Msg()
		if err != nil {
			return true // a status_changed without its status
		}
		status, at, ok = msg.(protocol.StatusChangedMsg).Status, ev.Timestamp, true
		if at.IsZero() {
			at = l.Timestamp
		}
		return false
	})
	return status, at, ok, err
}
