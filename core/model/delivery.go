package model

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// DefaultMaxMessageBytes caps one reply's text, its reasoning and each tool
// call's arguments: a runaway or hostile stream cannot grow grove's memory
// (or the rollout) without bound.
const DefaultMaxMessageBytes = 1 << 20

// delivery forwards one Stream call's text and reasoning to onDelta across
// retries without repeating anything: while a new attempt re-sends what was
// already delivered it is suppressed; when it diverges (or ends short of
// it), one DeltaReset voids everything delivered in this call and the new
// attempt's text and reasoning are sent again from the start.
type delivery struct {
	onDelta         func(Delta)
	limit           int // bytes kept of one text, reasoning or arguments
	text, reasoning track
	calls           []*callBuilder // the current attempt's tool calls
}

// track is one kind of streamed text. Invariant: cur is a prefix of shown
// (or equal to it) whenever onDelta is set.
type track struct {
	shown   strings.Builder // delivered during this Stream call
	cur     strings.Builder // produced by the current attempt
	dropped int64           // bytes of the current attempt beyond the limit
}

func (d *delivery) track(kind DeltaKind) *track {
	if kind == DeltaReasoning {
		return &d.reasoning
	}
	return &d.text
}

// newAttempt starts a new attempt; what was shown stays remembered.
func (d *delivery) newAttempt() {
	for _, t := range []*track{&d.text, &d.reasoning} {
		t.cur.Reset()
		t.dropped = 0
	}
	d.calls = nil
}

// newCall starts a tool call of the current attempt.
func (d *delivery) newCall() *callBuilder {
	c := &callBuilder{}
	d.calls = append(d.calls, c)
	return c
}

// capped returns the part of s that fits after have bytes (cut on a rune
// boundary) and how many bytes were left out.
func capped(s string, have, limit int) (string, int) {
	room := limit - have
	if room >= len(s) {
		return s, 0
	}
	if room <= 0 {
		return "", len(s)
	}
	cut := room
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut], len(s) - cut
}

// add records s (DeltaText or DeltaReasoning) and delivers what is new.
func (d *delivery) add(kind DeltaKind, s string) {
	if s == "" {
		return
	}
	t := d.track(kind)
	s, over := capped(s, t.cur.Len(), d.maxBytes())
	t.dropped += int64(over)
	if s == "" {
		return
	}
	d.deliver(kind, t, s)
}

func (d *delivery) deliver(kind DeltaKind, t *track, s string) {
	pos := t.cur.Len()
	t.cur.WriteString(s)
	if d.onDelta == nil {
		return
	}
	shown := t.shown.String()
	if pos < len(shown) {
		n := min(len(s), len(shown)-pos)
		if s[:n] != shown[pos:pos+n] {
			d.reset()
			return
		}
		s = s[n:] // the replayed part was shown already
		if s == "" {
			return
		}
	}
	t.shown.WriteString(s)
	d.onDelta(Delta{Kind: kind, Text: s})
}

func (d *delivery) maxBytes() int {
	if d.limit <= 0 {
		return DefaultMaxMessageBytes
	}
	return d.limit
}

// finish ends a successful attempt: a capped text or reasoning gets its
// marker, and if the attempt produced less than was shown (an earlier
// attempt got further before failing), the extra is voided. It returns a
// warning per capped track.
func (d *delivery) finish() []string {
	var warnings []string
	for _, k := range []DeltaKind{DeltaReasoning, DeltaText} {
		t := d.track(k)
		if t.dropped == 0 {
			continue
		}
		what := "message"
		if k == DeltaReasoning {
			what = "reasoning"
		}
		marker := fmt.Sprintf("\n\n[grove: %s truncated: %d bytes over the %d-byte limit were dropped]", what, t.dropped, d.maxBytes())
		d.deliver(k, t, marker)
		warnings = append(warnings, fmt.Sprintf("model %s truncated at %d bytes (%d bytes dropped)", what, d.maxBytes(), t.dropped))
	}
	for _, c := range d.calls {
		if c.dropped > 0 {
			warnings = append(warnings, fmt.Sprintf("arguments of tool call %s truncated at %d bytes (%d bytes dropped)", c.name, d.maxBytes(), c.dropped))
		}
	}
	if d.onDelta != nil && (d.text.cur.Len() != d.text.shown.Len() || d.reasoning.cur.Len() != d.reasoning.shown.Len()) {
		d.reset()
	}
	return warnings
}

// reset voids what was delivered and re-sends the current attempt.
func (d *delivery) reset() {
	d.onDelta(Delta{Kind: DeltaReset})
	for _, k := range []DeltaKind{DeltaReasoning, DeltaText} {
		t := d.track(k)
		t.shown.Reset()
		if t.cur.Len() > 0 {
			t.shown.WriteString(t.cur.String())
			d.onDelta(Delta{Kind: k, Text: t.cur.String()})
		}
	}
}

// callBuilder assembles one streamed tool call.
type callBuilder struct {
	id, name string
	custom   bool // a custom_tool_call: plain-text input
	args     strings.Builder
	dropped  int64 // argument bytes beyond the limit
}

// addArguments appends an arguments fragment, capped like message text.
func (d *delivery) addArguments(c *callBuilder, s string) {
	s, over := capped(s, c.args.Len(), d.maxBytes())
	c.dropped += int64(over)
	c.args.WriteString(s)
}

// setArguments replaces the arguments with the server's final version.
func (d *delivery) setArguments(c *callBuilder, s string) {
	c.args.Reset()
	c.dropped = 0
	d.addArguments(c, s)
}

func (c *callBuilder) request() ToolCallRequest {
	return ToolCallRequest{CallID: c.id, Name: c.name, Arguments: c.args.String(), Custom: c.custom}
}
