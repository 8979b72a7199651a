package tui

import (
	"strings"
	"testing"

	"github.com/grovecli/grove/core/pricing"
	"github.com/grovecli/grove/protocol"
)

// costFrom prices usage with a pricing table, as cmd/grove wires it.
func costFrom(tab pricing.Table) func(string, protocol.TokenUsage) (float64, bool) {
	return tab.Cost
}

// Ctrl+T shows each agent's cost (its row, and the usage line of the
// selected one) and the session's, from the usage the
// providers reported and the model's price; the resumed session (usage
// replayed from its rollouts) shows the same. Goldens at 80x24 and 120x40.
func TestGoldenAgentCost(t *testing.T) {
	// gpt-test at $2 / $0.50 cached / $8 per 1M tokens. The scripted
	// session's root used 32,900 in + 300 out, the explorer 3,800 + 300:
	// 0.0658 + 0.0024 = $0.0682 and 0.0076 + 0.0024 = $0.0100.
	prices := costFrom(pricing.Table{"gpt-test": {Input: 2, CacheRead: 0.5, Output: 8}})
	evs := scriptedSession()
	root, ex := resumedScripted(t, evs)
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		live, _ := newTestModel(t, size[0], size[1], newFake(rootInfo()))
		live.opts.Cost = prices
		live = feed(live, evs...)
		live, _ = press(live, "ctrl+t")
		s := screen(live)
		golden(t, "overlay_"+sizeName(size), s)
		if size[0] == 120 {
			for _, want := range []string{"root $0.0682 · in 32.9k (cached 0) · out 300 (reasoning 0)", "session $0.0782 · in 36.7k", "4.1k $0.0100"} {
				if !strings.Contains(s, want) {
					t.Fatalf("%q missing:\n%s", want, s)
				}
			}
		}
		if !strings.Contains(s, "root 33.2k · all 37.3k tok · $0.0782") {
			t.Fatalf("%v: no session cost in the status line:\n%s", size, s)
		}
		resumed, _ := newTestModel(t, size[0], size[1], newFake(root, ex))
		resumed.opts.Cost = prices
		resumed = drive(resumed, resumed.scanResumed())
		resumed, _ = press(resumed, "ctrl+t")
		if rs := screen(resumed); usageRow(rs) != usageRow(s) {
			t.Fatalf("%v: resumed cost differs:\nlive:    %s\nresumed: %s", size, usageRow(s), usageRow(rs))
		}
	}
}

// A model without a price gets no cost, and the session total says which
// models it leaves out instead of counting them as free.
func TestUnpricedModelShowsNoCost(t *testing.T) {
	m, _ := newTestModel(t, 160, 30, newFake(rootInfo()))
	m.opts.Cost = costFrom(pricing.Builtin()) // no gpt-test in it
	m = feed(m, scriptedSession()...)
	m, _ = press(m, "ctrl+t")
	row := usageRow(screen(m))
	if strings.Contains(row, "$") || !strings.Contains(row, "no price for gpt-test") {
		t.Fatalf("usage row %q", row)
	}
}

// resumedScripted writes the scripted session's rollouts and returns the
// threads as a resumed engine lists them.
func resumedScripted(t *testing.T, evs []protocol.Event) (root, ex protocol.ThreadInfo) {
	var rootEvs, exEvs []protocol.Event
	for _, e := range evs {
		if e.ThreadID == explorerID {
			exEvs = append(exEvs, e)
		} else {
			rootEvs = append(rootEvs, e)
		}
	}
	root = rootInfo()
	root.Status, root.RolloutPath = protocol.Completed("Fixed the leap-year check.", true), writeRollout(t, rootEvs...)
	ex = child(explorerID, "explorer", "", "find the date parser", 1, rootID)
	ex.Status, ex.RolloutPath = protocol.Shutdown(), writeRollout(t, exEvs...)
	return root, ex
}

// usageRow is the Ctrl+T line with the token and cost breakdown.
func usageRow(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, "│ session ") {
			return strings.TrimSpace(l)
		}
	}
	return ""
}

// With one agent on a priced model and one on an unpriced one, the totals
// say they leave some out: "≥" on the status line, the model named in Ctrl+T.
func TestPartlyPricedSession(t *testing.T) {
	m, _ := newTestModel(t, 160, 30, newFake(rootInfo()))
	m.opts.Cost = costFrom(pricing.Table{"gpt-test": {Input: 2, CacheRead: 0.5, Output: 8}})
	ev := started(child(explorerID, "explorer", "", "find the date parser", 1, rootID), 0)
	ev.Thread.Model = "local-llm"
	evs := scriptedSession()
	for i := range evs {
		if evs[i].Type == protocol.EventThreadStarted && evs[i].ThreadID == explorerID {
			evs[i].Thread = ev.Thread
		}
	}
	m = feed(m, evs...)
	if s := screen(m); !strings.Contains(s, "root 33.2k · all 37.3k tok · ≥$0.0682") {
		t.Fatalf("status line:\n%s", s)
	}
	m, _ = press(m, "ctrl+t")
	if row := usageRow(screen(m)); !strings.Contains(row, "session $0.0682 + no price for local-llm") {
		t.Fatalf("usage row %q", row)
	}
}
