package tui

import (
	"slices"
	"strings"

	"github.com/grovecli/grove/rollout"
)

// pickerSearch is the picker filter's state between keys, so typing stays
// instant with 100,000 sessions: each entry's searchable text is built
// once; a filter that extends the previous one searches only the previous
// matches (a match of "pars" is one of "par" too); entries loaded
// later are searched on their own; and the result is kept until the filter
// or the entries change (visible runs on every render).
type pickerSearch struct {
	src      []string // searchable text of entries[i]
	bucket   []int8   // recency bucket of entries[i] (see recencyBucket)
	filter   string   // the filter matches was computed for
	searched int      // entries searched for it
	matches  []pickerMatch
	out      []rollout.IndexEntry // the ranked result
	valid    bool
}

func searchText(e rollout.IndexEntry) string {
	return foldText(title(e) + " " + e.Note + " " + e.Cwd + " " + string(e.ID))
}

// visible applies the filter. Matches are ranked by how well they match
// within recency buckets (today, this week, this month, older), so an old
// session never jumps over today's, and the order of what is shown does
// not change as older pages load.
func (p *picker) visible() []rollout.IndexEntry {
	if p.filter == "" {
		return p.entries
	}
	s := &p.search
	if len(s.src) > len(p.entries) { // entries replaced
		*s = pickerSearch{}
	}
	now := p.now()
	for _, e := range p.entries[len(s.src):] {
		s.src = append(s.src, searchText(e))
		s.bucket = append(s.bucket, int8(recencyBucket(now, e.UpdatedAt)))
	}
	if s.valid && s.filter == p.filter && s.searched == len(p.entries) {
		return s.out
	}
	pattern := foldText(p.filter)
	switch {
	case s.valid && s.filter == p.filter:
		// Same filter, more entries: search the new ones.
		s.matches = append(s.matches, findFrom(pattern, s.src, s.searched, len(s.src))...)
	case s.valid && strings.HasPrefix(p.filter, s.filter) && s.filter != "":
		// A longer filter: only what matched the shorter one can match,
		// plus entries loaded since.
		s.matches = refine(pattern, s.src, s.matches)
		s.matches = append(s.matches, findFrom(pattern, s.src, s.searched, len(s.src))...)
	default:
		s.matches = findFrom(pattern, s.src, 0, len(s.src))
	}
	s.filter, s.searched, s.valid = p.filter, len(s.src), true
	s.out = p.rank(s.matches, s.bucket)
	return s.out
}

// findFrom matches pattern against src[from:to], indexes into src.
func findFrom(pattern string, src []string, from, to int) []pickerMatch {
	var out []pickerMatch
	for i := from; i < to; i++ {
		if sc, ok := matchScore(pattern, src[i]); ok {
			out = append(out, pickerMatch{index: i, score: sc})
		}
	}
	return out
}

// refine re-matches pattern against the earlier matches' entries only.
func refine(pattern string, src []string, prev []pickerMatch) []pickerMatch {
	out := prev[:0:0]
	for _, m := range prev {
		if sc, ok := matchScore(pattern, src[m.index]); ok {
			out = append(out, pickerMatch{index: m.index, score: sc})
		}
	}
	return out
}

// rank orders matches: recency bucket, then score, then newest first.
func (p *picker) rank(matches []pickerMatch, bucket []int8) []rollout.IndexEntry {
	type ranked struct {
		pickerMatch
		bucket int
	}
	ms := make([]ranked, len(matches))
	for i, m := range matches {
		ms[i] = ranked{m, int(bucket[m.index])}
	}
	slices.SortFunc(ms, func(a, b ranked) int {
		if a.bucket != b.bucket {
			return a.bucket - b.bucket
		}
		if a.score != b.score {
			return b.score - a.score
		}
		return a.index - b.index // newest first
	})
	out := make([]rollout.IndexEntry, len(ms))
	for i, m := range ms {
		out[i] = p.entries[m.index]
	}
	return out
}
