package model

import (
	"reflect"
	"strings"
	"testing"
)

// attempts is a script for delivery: each attempt's deltas; "R:" marks
// reasoning; the last attempt succeeds.
func runDelivery(attempts [][]string) []string {
	var got []string
	d := &delivery{onDelta: func(x Delta) {
		switch x.Kind {
		case DeltaText:
			got = append(got, x.Text)
		case DeltaReasoning:
			got = append(got, "R:"+x.Text)
		case DeltaReset:
			got = append(got, "RESET")
		}
	}}
	for i, a := range attempts {
		d.newAttempt()
		for _, s := range a {
			if r, ok := strings.CutPrefix(s, "R:"); ok {
				d.add(DeltaReasoning, r)
			} else {
				d.add(DeltaText, s)
			}
		}
		if i == len(attempts)-1 {
			d.finish()
		}
	}
	return got
}

func TestDelivery(t *testing.T) {
	for _, tc := range []struct {
		name     string
		attempts [][]string
		want     []string
	}{
		{"one attempt", [][]string{{"ab", "cd"}}, []string{"ab", "cd"}},
		{"replay suppressed, rest continues", [][]string{{"ab", "cd"}, {"a", "bc", "def"}}, []string{"ab", "cd", "ef"}},
		{"replay in other chunking", [][]string{{"abc"}, {"a", "b", "c", "d"}}, []string{"abc", "d"}},
		{"diverges mid-chunk", [][]string{{"abc"}, {"abX", "Y"}}, []string{"abc", "RESET", "abX", "Y"}},
		{"ends short", [][]string{{"abcdef"}, {"abc"}}, []string{"abcdef", "RESET", "abc"}},
		{"ends with nothing", [][]string{{"abc"}, {}}, []string{"abc", "RESET"}},
		{"nothing shown before", [][]string{{}, {"abc"}}, []string{"abc"}},
		{"three attempts", [][]string{{"ab"}, {"abcd"}, {"abcdef"}}, []string{"ab", "cd", "ef"}},
		{"reasoning replay suppressed", [][]string{{"R:think", "x"}, {"R:think", "xy"}}, []string{"R:think", "x", "y"}},
		{"reasoning diverges: both resent", [][]string{{"R:think", "x"}, {"R:thank"}, {"R:thank", "z"}}, []string{"R:think", "x", "RESET", "R:thank", "z"}},
	} {
		if got := runDelivery(tc.attempts); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestDeliveryWithoutConsumerStillAssembles(t *testing.T) {
	d := &delivery{}
	d.add(DeltaText, "abc")
	d.newAttempt()
	d.add(DeltaText, "xy")
	d.finish()
	if d.text.cur.String() != "xy" {
		t.Fatal(d.text.cur.String())
	}
}
