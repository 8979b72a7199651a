package rollout

import (
	"iter"
	"path/filepath"

	sjson "github.com/segmentio/encoding/json"

	"github.com/grovecli/grove/protocol"
)

// lineage resolves a sub-agent's root thread and whether that root is
// archived. thread/archive marks only the root's index line (a sub-agent
// cannot be archived on its own), and a sub-agent is archived when its
// root is: Codex's thread/archive archives the spawned descendants with
// the root (thread_archive.rs thread_archive_archives_spawned_descendants).
//
// An id's latest line is the first a backward scan of the index meets.
// The listing's own scan records the ids it decodes (note); an ancestor
// whose latest line lies further back is found by the lineage's own
// backward cursor, which reads only as far as the ancestors asked about
// need and never reads a line twice.
type lineage struct {
	known map[protocol.ThreadID]lineNode
	next  func() ([]byte, bool) // the lineage's own backward cursor
	stop  func()
	ended bool
}

// lineNode is what an id's latest index line says of its place in a tree.
type lineNode struct {
	parent   protocol.ThreadID
	archived bool
}

// maxLineage bounds a walk to the root (a damaged index could hold a cycle).
const maxLineage = 1000

func newLineage(home string) *lineage {
	path := filepath.Join(home, IndexFile)
	next, stop := iter.Pull(func(yield func([]byte) bool) {
		_ = reverseScan(path, reverseBlock, yield) // a missing index has no ancestors
	})
	return &lineage{known: map[protocol.ThreadID]lineNode{}, next: next, stop: stop}
}

// close stops the cursor.
func (l *lineage) close() { l.stop() }

// note records e as its id's latest line, unless one is known already.
func (l *lineage) note(e IndexEntry) {
	if _, ok := l.known[e.ID]; !ok {
		l.known[e.ID] = lineNode{parent: e.ParentID, archived: e.Archived}
	}
}

// root returns the root of e's tree and whether it is archived: e's own
// for a root, the nearest ancestor the index still holds for a sub-agent
// whose chain is broken.
func (l *lineage) root(e IndexEntry) (protocol.ThreadID, bool) {
	id, n := e.ID, lineNode{parent: e.ParentID, archived: e.Archived}
	for range maxLineage {
		if n.parent == "" {
			break
		}
		up, ok := l.lookup(n.parent)
		if !ok {
			break
		}
		id, n = n.parent, up
	}
	return id, n.archived
}

// lookup is id's latest line, read back from the index as far as needed.
func (l *lineage) lookup(id protocol.ThreadID) (lineNode, bool) {
	for {
		if n, ok := l.known[id]; ok {
			return n, true
		}
		if l.ended {
			return lineNode{}, false
		}
		b, ok := l.next()
		if !ok {
			l.ended = true
			continue
		}
		lineID, ok := leadingID(b)
		if ok {
			if _, seen := l.known[protocol.ThreadID(lineID)]; seen {
				continue // an older line of an id already known
			}
		}
		var line struct {
			ID       protocol.ThreadID `json:"id"`
			ParentID protocol.ThreadID `json:"parent_id"`
			Archived bool              `json:"archived"`
		}
		if sjson.Unmarshal(b, &line) != nil || line.ID == "" {
			continue
		}
		l.note(IndexEntry{ID: line.ID, ParentID: line.ParentID, Archived: line.Archived})
	}
}
