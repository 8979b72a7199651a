package tui

import (
	"slices"

	"github.com/grovecli/grove/protocol"
)

// The tree lists a parent's agents in the order the model asked for them
// (issue 35 item 14), not the order their threads happened to start: five
// spawns of one reply run at once and start in any order. The engine
// announces a reply's calls in call order, and a resumed history keeps
// it, so numbering delegation calls as they are seen and sorting children
// by their spawn call's number gives the same tree live and resumed.

// noteCall numbers a delegation call as it is seen (live or replayed).
func (s *session) noteCall(callID string) {
	if callID == "" {
		return
	}
	if s.callSeq == nil {
		s.callSeq = map[string]int{}
	}
	if _, ok := s.callSeq[callID]; !ok {
		s.callSeq[callID] = len(s.callSeq)
	}
}

// spawnRank is where thread id goes among its siblings: its spawn call's
// number; one whose call was never seen goes last, in arrival order.
func (s *session) spawnRank(id protocol.ThreadID) int {
	if t := s.threads[id]; t != nil {
		if n, ok := s.callSeq[t.info.SpawnCallID]; ok {
			return n
		}
	}
	return int(^uint(0) >> 1)
}

// addChild puts child among p's children in spawn order.
func (s *session) addChild(p *threadView, child protocol.ThreadID) {
	p.children = append(p.children, child)
	s.sortChildren(p)
}

func (s *session) sortChildren(p *threadView) {
	slices.SortStableFunc(p.children, func(a, b protocol.ThreadID) int {
		ra, rb := s.spawnRank(a), s.spawnRank(b)
		switch {
		case ra < rb:
			return -1
		case ra > rb:
			return 1
		}
		return 0
	})
}

// sortAllChildren orders every parent's children once a resumed
// session's histories numbered their spawn calls.
func (s *session) sortAllChildren() {
	for _, t := range s.threads {
		s.sortChildren(t)
	}
}
