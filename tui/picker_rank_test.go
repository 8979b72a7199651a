package tui

import (
	"math/rand/v2"
	"testing"
)

// rankKey sorts like the rule it packs: recency bucket, then the higher
// score, then the lower index (newest first).
func TestRankKeyOrdersLikeTheRule(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	type m struct{ bucket, score, index int }
	pick := func() m {
		return m{r.IntN(4), []int{0, 1, 7, 70, 500, scoreMax - 1, scoreMax}[r.IntN(7)], r.IntN(200_000)}
	}
	for range 100_000 {
		a, b := pick(), pick()
		want := 0
		switch {
		case a.bucket != b.bucket:
			want = a.bucket - b.bucket
		case a.score != b.score:
			want = b.score - a.score
		default:
			want = a.index - b.index
		}
		ka, kb := rankKey(a.bucket, a.score, a.index), rankKey(b.bucket, b.score, b.index)
		if got := compareU64(ka, kb); sign(got) != sign(want) {
			t.Fatalf("%+v vs %+v: keys compare %d, rule %d", a, b, got, want)
		}
		if int(ka&indexMask) != a.index {
			t.Fatalf("index %d not recovered from its key", a.index)
		}
	}
}

func compareU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func sign(x int) int {
	switch {
	case x < 0:
		return -1
	case x > 0:
		return 1
	}
	return 0
}
