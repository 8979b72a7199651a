package model

import "strings"

// delivery forwards one Stream call's text and reasoning to onDelta across
// retries without repeating anything: while a new attempt re-sends what was
// already delivered it is suppressed; when it diverges (or ends short of
// it), one DeltaReset voids everything delivered in this call and the new
// attempt's text and reasoning are sent again from the start.
type delivery struct {
	onDelta         func(Delta)
	text, reasoning track
}

// track is one kind of streamed text. Invariant: cur is a prefix of shown
// (or equal to it) whenever onDelta is set.
type track struct {
	shown strings.Builder // delivered during this Stream call
	cur   strings.Builder // produced by the current attempt
}

func (d *delivery) track(kind DeltaKind) *track {
	if kind == DeltaReasoning {
		return &d.reasoning
	}
	return &d.text
}

// newAttempt starts a new attempt; what was shown stays remembered.
func (d *delivery) newAttempt() {
	d.text.cur.Reset()
	d.reasoning.cur.Reset()
}

// add records s (DeltaText or DeltaReasoning) and delivers what is new.
func (d *delivery) add(kind DeltaKind, s string) {
	if s == "" {
		return
	}
	t := d.track(kind)
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

// finish ends a successful attempt: if it produced less than was shown
// (an earlier attempt got further before failing), the extra is voided.
func (d *delivery) finish() {
	if d.onDelta == nil {
		return
	}
	if d.text.cur.Len() != d.text.shown.Len() || d.reasoning.cur.Len() != d.reasoning.shown.Len() {
		d.reset()
	}
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
