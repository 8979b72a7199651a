package rollout

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/grovecli/grove/protocol"
)

// index builds a session index line by line.
type index struct {
	t    *testing.T
	home string
	n    int
}

func newIndex(t *testing.T) *index { return &index{t: t, home: t.TempDir()} }

func (x *index) add(id, parent, note string) {
	x.t.Helper()
	x.n++
	e := IndexEntry{ID: protocol.ThreadID(id), ParentID: protocol.ThreadID(parent), Note: note, Cwd: "/w", UpdatedAt: t0.Add(time.Duration(x.n) * time.Minute), RolloutPath: "/r/" + id}
	must(x.t, AppendIndex(x.home, e))
}

func (x *index) raw(s string) {
	x.t.Helper()
	appendRaw(x.t, filepath.Join(x.home, IndexFile), s)
}

func ids(es []IndexEntry) string {
	var s []string
	for _, e := range es {
		s = append(s, string(e.ID))
	}
	return strings.Join(s, " ")
}

func TestListSessions(t *testing.T) {
	x := newIndex(t)
	x.add("aaa1", "", "a1")
	x.add("bbb2", "", "b1")
	x.add("ccc3", "aaa1", "") // a child: never listed
	x.add("aaa1", "", "a2")   // aaa1 updated: newest again, with its new note
	x.raw("{\"id\":\"torn-in-the-middle\",\n")
	x.add("ddd4", "", "d1")
	x.add("eee5", "", "e1")
	x.add("ccc3", "aaa1", "")
	x.add("eee5", "", "e2")
	x.raw(`{"id":"torn-at-the-end","cw`)
	// Newest first: eee5 ddd4 aaa1 bbb2.
	for _, tc := range []struct {
		offset, limit int
		want          string
		more          bool
	}{
		{0, 50, "eee5 ddd4 aaa1 bbb2", false},
		{0, 0, "eee5 ddd4 aaa1 bbb2", false}, // default page size
		{0, 2, "eee5 ddd4", true},
		{2, 2, "aaa1 bbb2", false},
		{1, 2, "ddd4 aaa1", true},
		{3, 1, "bbb2", false},
		{4, 10, "", false},
		{-5, 1, "eee5", true},
	} {
		got, more, err := ListSessions(x.home, tc.offset, tc.limit)
		if err != nil || ids(got) != tc.want || more != tc.more {
			t.Errorf("ListSessions(%d, %d) = %q more=%v err=%v, want %q more=%v", tc.offset, tc.limit, ids(got), more, err, tc.want, tc.more)
		}
	}
	got, _, _ := ListSessions(x.home, 0, 50)
	if got[0].Note != "e2" || got[2].Note != "a2" {
		t.Errorf("older entries not superseded: %+v", got)
	}
	got, more, err := ListSessions(t.TempDir(), 0, 10)
	if err != nil || len(got) != 0 || more {
		t.Errorf("missing index: %v %v %v", got, more, err)
	}
}

func TestAppendIndex(t *testing.T) {
	home := filepath.Join(t.TempDir(), "new-home")
	long := strings.Repeat("é", 300)
	must(t, AppendIndex(home, IndexEntry{ID: "a", FirstPrompt: long}))
	must(t, AppendIndex(home, IndexEntry{ID: "b", FirstPrompt: "short"}))
	got, _, err := ListSessions(home, 0, 10)
	if err != nil || len(got) != 2 {
		t.Fatal(got, err)
	}
	if got[0].FirstPrompt != "short" || got[1].FirstPrompt != strings.Repeat("é", maxFirstPrompt)+"…" {
		t.Errorf("first prompts %q", []string{got[0].FirstPrompt, got[1].FirstPrompt})
	}
	for path, perm := range map[string]os.FileMode{home: 0o700, filepath.Join(home, IndexFile): 0o600} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != perm {
			t.Errorf("%s: mode %v, want %v (%v)", path, fi.Mode().Perm(), perm, err)
		}
	}
	if err := AppendIndex(home, IndexEntry{Cwd: "/w"}); err == nil || !strings.Contains(err.Error(), "no id") {
		t.Errorf("entry without id: %v", err)
	}
}

// TestAppendIndexAfterTornLine: a writer killed mid-line does not take the
// next entry down with it.
func TestAppendIndexAfterTornLine(t *testing.T) {
	x := newIndex(t)
	x.add("a", "", "")
	x.raw(`{"id":"b","no`)
	x.add("c", "", "")
	got, _, err := ListSessions(x.home, 0, 10)
	if err != nil || ids(got) != "c a" {
		t.Fatalf("%q %v", ids(got), err)
	}
}

func TestFindSession(t *testing.T) {
	x := newIndex(t)
	x.add("019a-aaaa-0001", "", "old")
	x.add("019a-bbbb-0002", "", "")
	x.add("019a-bbbb-0003", "019a-aaaa-0001", "")
	x.add("019a-aaaa-0001", "", "new")
	x.add("019a-aaaa-0001-x", "", "") // the first id is a prefix of this one
	x.raw(`{"id":"019a-cc`)
	for _, tc := range []struct {
		query, want, note, err string
	}{
		{query: "019a-aaaa-0001", want: "019a-aaaa-0001", note: "new"},
		{query: " 019a-bbbb-0002 ", want: "019a-bbbb-0002"},
		{query: "019a-bbbb-0003", want: "019a-bbbb-0003"}, // children are found too
		{query: "019a-aaaa-0001-", want: "019a-aaaa-0001-x"},
		{query: "0002", want: "019a-bbbb-0002"}, // the suffix the UI shows
		{query: "019a-bbbb", err: `ambiguous (2 sessions match): 019a-bbbb-0002, 019a-bbbb-0003`},
		{query: "019a-cc", err: "no session"},
		{query: "zzz", err: "no session"},
		{query: "", err: "empty session id"},
	} {
		e, err := FindSession(x.home, tc.query)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("FindSession(%q) = %v, %v; want error containing %q", tc.query, e.ID, err, tc.err)
			}
		case err != nil || string(e.ID) != tc.want || e.Note != tc.note:
			t.Errorf("FindSession(%q) = %v (note %q), %v; want %s (note %q)", tc.query, e.ID, e.Note, err, tc.want, tc.note)
		}
	}
}

func TestFindSessionAmbiguousListIsBounded(t *testing.T) {
	x := newIndex(t)
	for i := range 25 {
		x.add(fmt.Sprintf("s-%02d", i), "", "")
	}
	_, err := FindSession(x.home, "s-")
	if err == nil || !strings.Contains(err.Error(), "(25 sessions match)") || !strings.Contains(err.Error(), "s-09 and 15 more") || strings.Contains(err.Error(), "s-10") {
		t.Fatalf("%v", err)
	}
}

func TestLastSession(t *testing.T) {
	x := newIndex(t)
	if _, err := LastSession(x.home); err == nil || !strings.Contains(err.Error(), "no sessions") {
		t.Fatalf("empty: %v", err)
	}
	x.add("a", "", "")
	x.add("b", "", "")
	x.add("c", "a", "") // a child is never the last session
	x.add("a", "", "")
	if e, err := LastSession(x.home); err != nil || e.ID != "a" {
		t.Fatalf("%v %v", e.ID, err)
	}
}

func TestChildren(t *testing.T) {
	x := newIndex(t)
	x.add("root", "", "")
	x.add("k1", "root", "k1 v1")
	x.add("k2", "root", "k2 v1")
	x.add("g1", "k1", "") // a grandchild
	x.raw("{torn\n")
	x.add("k1", "root", "k1 v2")
	x.add("other", "", "")
	got, err := Children(x.home, "root")
	if err != nil || ids(got) != "k1 k2" || got[0].Note != "k1 v2" {
		t.Fatalf("%+v %v", got, err)
	}
	if got, err := Children(x.home, "k1"); err != nil || ids(got) != "g1" {
		t.Fatalf("grandchildren %+v %v", got, err)
	}
	if got, err := Children(t.TempDir(), "root"); err != nil || len(got) != 0 {
		t.Fatalf("missing index %+v %v", got, err)
	}
}

// TestConcurrentIndex: goroutines append while others list; every line
// is intact and every entry arrives.
func TestConcurrentIndex(t *testing.T) {
	const writers, perW = 8, 100
	home := t.TempDir()
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range perW {
				e := IndexEntry{ID: protocol.ThreadID(fmt.Sprintf("w%d-%d", w, i)), FirstPrompt: strings.Repeat("p", 150+i), UpdatedAt: t0}
				if err := AppendIndex(home, e); err != nil {
					t.Error(err)
				}
			}
		})
	}
	for range 2 {
		wg.Go(func() {
			for range 20 {
				if _, _, err := ListSessions(home, 0, 50); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	checkIndexLines(t, home, writers*perW, false)
}

// checkIndexLines asserts that the index holds exactly want valid lines
// (and, with blankOK, any number of blank ones).
func checkIndexLines(t *testing.T, home string, want int, blankOK bool) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(home, IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	var ls []string
	for l := range strings.SplitSeq(strings.TrimSuffix(string(b), "\n"), "\n") {
		if l != "" || !blankOK {
			ls = append(ls, l)
		}
	}
	seen := map[protocol.ThreadID]bool{}
	for i, l := range ls {
		var e IndexEntry
		if err := json.Unmarshal([]byte(l), &e); err != nil || e.ID == "" {
			t.Fatalf("line %d torn: %q", i+1, l)
		}
		seen[e.ID] = true
	}
	if len(ls) != want || len(seen) != want {
		t.Fatalf("%d lines, %d ids, want %d", len(ls), len(seen), want)
	}
}

// TestIndexAppendsFromSeveralProcesses: an flock serialises appends across
// processes (the mutex only covers one), so every line is whole and no
// writer mistakes another's line in progress for a torn one (no blank
// lines). The test binary itself is the writer.
func TestIndexAppendsFromSeveralProcesses(t *testing.T) {
	if home := os.Getenv("ROLLOUT_TEST_INDEX_WRITER"); home != "" {
		w, _ := strconv.Atoi(os.Getenv("ROLLOUT_TEST_WRITER_ID"))
		for i := range 200 {
			// Lines of ~1.5 KiB, with prompts truncated to the limit.
			e := IndexEntry{ID: protocol.ThreadID(fmt.Sprintf("p%d-%d", w, i)), FirstPrompt: strings.Repeat("é", 400), Note: strings.Repeat("n", 1000)}
			if err := AppendIndex(home, e); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	const procs = 4
	home := t.TempDir()
	var wg sync.WaitGroup
	for w := range procs {
		cmd := exec.Command(os.Args[0], "-test.run=^TestIndexAppendsFromSeveralProcesses$")
		cmd.Env = append(os.Environ(), "ROLLOUT_TEST_INDEX_WRITER="+home, "ROLLOUT_TEST_WRITER_ID="+strconv.Itoa(w))
		wg.Go(func() {
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("writer %d: %v\n%s", w, err, out)
			}
		})
	}
	wg.Wait()
	checkIndexLines(t, home, procs*200, false) // flock: no blank lines either
}

// ListAllSessions is one pass giving what the pages give one after
// another: every root session once, newest first, from any offset.
func TestListAllSessionsMatchesThePages(t *testing.T) {
	home := t.TempDir()
	for i := 0; i < 7; i++ {
		for u := 0; u < 3; u++ { // updates supersede older lines
			e := IndexEntry{ID: protocol.ThreadID(fmt.Sprintf("s%d", i)), Cwd: "/w", Note: fmt.Sprintf("u%d", u), UpdatedAt: t0.Add(time.Duration(i*3+u) * time.Second), RolloutPath: "/r"}
			if err := AppendIndex(home, e); err != nil {
				t.Fatal(err)
			}
		}
		if err := AppendIndex(home, IndexEntry{ID: protocol.ThreadID(fmt.Sprintf("s%d-child", i)), ParentID: protocol.ThreadID(fmt.Sprintf("s%d", i)), RolloutPath: "/c"}); err != nil {
			t.Fatal(err)
		}
	}
	var paged []IndexEntry
	for off := 0; ; {
		page, more, err := ListSessions(home, off, 3)
		if err != nil {
			t.Fatal(err)
		}
		paged = append(paged, page...)
		off += len(page)
		if !more {
			break
		}
	}
	all, err := ListAllSessions(home, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(all, paged) || len(all) != 7 || all[0].ID != "s6" || all[0].Note != "u2" {
		t.Fatalf("all %+v\npaged %+v", all, paged)
	}
	rest, err := ListAllSessions(home, 5)
	if err != nil || len(rest) != 2 || rest[0].ID != "s1" {
		t.Fatalf("from offset 5: %+v %v", rest, err)
	}
}
