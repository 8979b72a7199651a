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
	// out is the ranked result. Its array is reused by the next ranking
	// (a fresh 19 MB list per key at 100,000 sessions kept the GC busy),
	// so a caller must not keep the list across a change of filter.
	out   []rollout.IndexEntry
	valid bool
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
	s.out = p.rank(s.out[:0], s.matches, s.bucket)
	return s.out
}

// findFrom matches pattern against src[from:to], indexes into src.
func findFrom(pattern string, src []string, from, to int) []pickerMatch {
	var out []pickerMatch
	for i := from; i < to; i++ {
		if sc, whole, ok := matchScore(pattern, src[i]); ok {
			out = append(out, pickerMatch{index: i, score: sc, contiguous: whole})
		}
	}
	return out
}

// refine re-matches pattern against the earlier matches' entries only,
// in place (the i-th kept match is written at or before prev[i]).
func refine(pattern string, src []string, prev []pickerMatch) []pickerMatch {
	out := prev[:0]
	for _, m := range prev {
		if sc, whole, ok := matchScore(pattern, src[m.index]); ok {
			out = append(out, pickerMatch{index: m.index, score: sc, contiguous: whole})
		}
	}
	return out
}

// rank appends matches to out in order: the pattern whole before in
// pieces (issue 35 item 26), then recency bucket, then score, then newest
// first.
// Each match becomes one integer that sorts in that order (bucket, then
// the score inverted, then the index), so ranking 100,000 matches on a
// key is a sort of plain integers, not of structs through a comparator.
func (p *picker) rank(out []rollout.IndexEntry, matches []pickerMatch, bucket []int8) []rollout.IndexEntry {
	keys := make([]uint64, len(matches))
	for i, m := range matches {
		b := int(bucket[m.index])
		if !m.contiguous {
			b += recencyBuckets // every whole match first, then the pieces
		}
		keys[i] = rankKey(b, m.score, m.index)
	}
	slices.Sort(keys)
	out = slices.Grow(out, len(keys))
	for _, k := range keys {
		out = append(out, p.entries[k&indexMask])
	}
	return out
}

const (
	indexBits = 32 // entries of the picker (< 4 billion)
	scoreBits = 28 // scores saturate at 2^28-1 (a 30-million-character filter)
	indexMask = 1<<indexBits - 1
	scoreMax  = 1<<scoreBits - 1
)

// recencyBuckets is how many recencyBucket has (today … older).
const recencyBuckets = 4

// rankKey packs bucket (0–7, lower first), score (higher first) and index
// (lower first) into one sortable integer.
func rankKey(bucket, score, index int) uint64 {
	score = min(max(score, 0), scoreMax)
	return uint64(bucket)<<(indexBits+scoreBits) | uint64(scoreMax-score)<<indexBits | uint64(index)
}
